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

// The nodes a profile runs on, as upstream: the ready ones the top-level nodeSelector
// selects (all ready ones without one).
std::vector<int> profile_nodes(const Cluster& cluster, const Policy& policy);

// Fewer than 2 such nodes: nothing runs (a note says so). A plugin's error is a note
// ("plugin X finished with error: ..."); the other plugins still run. Errors: only the
// evictor's args not applying to this cluster (an unknown PriorityClass).
Result<Plan> run_profile(const Profile& profile, const Policy& policy, const CycleInputs& inputs);

}  // namespace weft::descheduler::framework
