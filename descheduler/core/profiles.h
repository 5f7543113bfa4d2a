// The profile a policy enables: its DefaultEvictor args and its plugins, in the order the
// runner runs them (framework/runner.h). Every plugin is registered here.
#pragma once

#include "common/result.h"
#include "descheduler/core/defragment/world.h"
#include "descheduler/core/framework/plugin.h"

namespace weft::descheduler {

struct ProfileContext {
  PlanOptions options;
  // GangDefragment's world (pending pods, Queues, HyperNodes); its cluster must be the one
  // the profile runs on. Required when the policy enables GangDefragment.
  const defragment::World* world = nullptr;
};

Result<framework::Profile> profile_from_policy(const Policy& policy, const ProfileContext& context);

// One cycle of the policy's LoadAware (or LowNodeUtilization) alone, under the runner.
// Errors only for a policy that cannot be applied to this cluster (unknown PriorityClass).
Result<Plan> make_plan(const Cluster& cluster, const LoadReport& load, const Policy& policy,
                       const DeschedulerState& state, const PlanOptions& options);

}  // namespace weft::descheduler
