#include "descheduler/core/profiles.h"

#include "descheduler/core/defragment/plugin.h"
#include "descheduler/core/framework/runner.h"
#include "descheduler/core/plugins/LoadAware/load_aware.h"
#include "descheduler/core/plugins/registry/registry.h"

namespace weft::descheduler {

Result<framework::Profile> profile_from_policy(const Policy& policy, const ProfileContext& context) {
  framework::Profile p;
  p.name = "default";
  p.evictor = policy.evictor;
  if (policy.load_aware_enabled) p.balance.push_back(std::make_unique<plugins::LoadAware>(policy, context.options));
  plugins::add_to_profile(policy, p);   // the upstream strategies the policy enables
  if (policy.gang_defragment) {
    if (!context.world) return make_error("GangDefragment needs the cluster's pending pods, Queues and HyperNodes");
    p.balance.push_back(std::make_unique<defragment::GangDefragment>(
        *context.world, *policy.gang_defragment, defragment::Options{context.options.now, context.options.cooldown}));
  }
  return p;
}

Result<Plan> make_plan(const Cluster& cluster, const LoadReport& load, const Policy& policy,
                       const DeschedulerState& state, const PlanOptions& options) {
  framework::Profile p;
  p.evictor = policy.evictor;
  p.balance.push_back(std::make_unique<plugins::LoadAware>(policy, options));
  return framework::run_profile(p, policy, {cluster, load, state, options.now, options.cooldown});
}

}  // namespace weft::descheduler
