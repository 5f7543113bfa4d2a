// The profile runner, used by `plan` and `run` alike, as upstream's runProfiles: one
// ledger for the cycle (framework/ledger.h), one DefaultEvictor per profile with its own
// args; every profile's Deschedule plugins over the nodes, then every profile's Balance
// plugins, profiles in order, each seeing what the earlier ones evicted.
#pragma once

#include <functional>
#include <span>

#include "common/result.h"
#include "descheduler/core/framework/plugin.h"

namespace weft::descheduler::framework {

struct CycleInputs {
  const Cluster& cluster;
  const LoadReport& load;          // empty when the profiles read no metrics
  const DeschedulerState& state;
  TimePoint now;
  Seconds cooldown{600};
  // Per profile, the load its plugins read when it is not `load` (null: `load`).
  std::vector<const LoadReport*> profile_loads = {};
  // Instead of profile_loads, when the caller is still reading the loads as the cycle
  // starts: asked once, when a plugin first reads a load and at the latest before the
  // Balance plugins (the Deschedule plugins, which read none, run meanwhile). Its error
  // ends the cycle, as a load that could not be read ends it before any plugin runs.
  std::function<Result<std::vector<const LoadReport*>>()> later_profile_loads = {};
};

// The nodes the profiles run on, as upstream: the ready ones the top-level nodeSelector
// selects (all ready ones without one).
std::vector<int> profile_nodes(const Cluster& cluster, const Policy& policy);

// Fewer than 2 such nodes: nothing runs (a note says so). A plugin's error is a note
// ("plugin X finished with error: ..."); the other plugins still run. Errors: only an
// evictor's args not applying to this cluster (an unknown PriorityClass).
Result<Plan> run_profiles(std::span<const Profile> profiles, const Policy& policy, const CycleInputs& inputs);

// One profile alone in its cycle.
inline Result<Plan> run_profile(const Profile& profile, const Policy& policy, const CycleInputs& inputs) {
  return run_profiles(std::span<const Profile>(&profile, 1), policy, inputs);
}

}  // namespace weft::descheduler::framework
