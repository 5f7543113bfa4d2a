// Placing a job made of sub-groups (Volcano subGroupPolicy, a Kubernetes CompositePodGroup):
// the job's domain first (its networkTopology or topology key; best fit, lowest tier),
// then inside it each sub-group whole in the best-fitting domain of its own constraint;
// committed when the gang is ready (minMember, and minSubGroups / minGroupCount
// sub-groups at their size). Internal to the actions (place_job calls it).
#pragma once

#include <vector>

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

bool place_subgroups(Session& ssn, Job& job, const std::vector<int>& tasks);

}  // namespace weft::scheduler
