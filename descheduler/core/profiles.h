// The profiles a policy enables, one framework::Profile each: its DefaultEvictor args and
// its plugins, in the order the runner runs them (framework/runner.h). Every plugin is
// registered here.
#pragma once

#include <vector>

#include "common/result.h"
#include "descheduler/core/defragment/world.h"
#include "descheduler/core/framework/plugin.h"

namespace weft::descheduler {

struct ProfileContext {
  PlanOptions options;
  // GangDefragment's world (pending pods, Queues, HyperNodes); its cluster must be the one
  // the profiles run on. Required when a profile enables GangDefragment.
  const defragment::World* world = nullptr;
};

Result<framework::Profile> profile_from_policy(const PolicyProfile& enabled, const ProfileContext& context);
Result<std::vector<framework::Profile>> profiles_from_policy(const Policy& policy, const ProfileContext& context);

// One cycle of every profile's LoadAware (or LowNodeUtilization) alone, each under its
// profile's evictor, under the runner. Errors only for a policy that cannot be applied to
// this cluster (unknown PriorityClass).
Result<Plan> make_plan(const Cluster& cluster, const LoadReport& load, const Policy& policy,
                       const DeschedulerState& state, const PlanOptions& options);

}  // namespace weft::descheduler
