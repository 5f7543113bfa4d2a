// RFC 3339 timestamps ("2026-11-23T08:00:00Z", "...+01:00", fractional seconds).
#pragma once

#include <optional>
#include <string>

#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

std::optional<TimePoint> parse_rfc3339(const std::string& text);

}  // namespace weft::scheduler
