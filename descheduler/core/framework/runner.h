// The profile runner, used by `plan` and `run` alike: one DefaultEvictor for the cycle,
// the profile's Deschedule plugins over its nodes, then its Balance plugins, each seeing
// what the earlier ones evicted.
#pragma once

#include "common/result.h"
#include "descheduler/core/framework/plugin.h"

namespace weft::descheduler::framework {

struct CycleInputs {
  const Cluster& cluster;
  const LoadReport& load;          // empty when the profile reads no metrics
  const DeschedulerState& state;
  TimePoint now;
  Seconds cooldown{600};
};

// The nodes a profile runs on: those the top-level nodeSelector selects (all without one).
std::vector<int> profile_nodes(const Cluster& cluster, const Policy& policy);

// Errors: the evictor's args do not apply to this cluster (an unknown PriorityClass), or a
// plugin failed (the cycle then evicts nothing).
Result<Plan> run_profile(const Profile& profile, const Policy& policy, const CycleInputs& inputs);

}  // namespace weft::descheduler::framework
