// PodGroup status for Kubernetes' own PodGroups (native_status.cc).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

// The job's PodGroup conditions (or its children's, for a CompositePodGroup) and Pod
// FailedScheduling events; `why` is the reason it is not placed, if any.
void write_native_status(Session& s, const Job& j, const std::optional<std::pair<std::string, std::string>>& why);

}  // namespace weft::scheduler
