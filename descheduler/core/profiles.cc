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
  plugins::add_to_profile(policy, p);   // the upstream strategies the policy enables
  std::vector<std::unique_ptr<framework::BalancePlugin>> strategies = std::move(p.balance);
  p.balance.clear();
  std::unique_ptr<framework::BalancePlugin> load, gang;
  if (policy.load_aware_enabled) load = std::make_unique<plugins::LoadAware>(policy, context.options);
  if (policy.gang_defragment) {
    if (!context.world) return make_error("GangDefragment needs the cluster's pending pods, Queues and HyperNodes");
    gang = std::make_unique<defragment::GangDefragment>(
        *context.world, *policy.gang_defragment, defragment::Options{context.options.now, context.options.cooldown});
  }
  // Balance plugins run in the order the policy enables them, as upstream.
  size_t next = 0;
  for (const auto& name : policy.balance_order) {
    if (load && name == load->name()) p.balance.push_back(std::move(load));
    else if (gang && name == gang->name()) p.balance.push_back(std::move(gang));
    else if (next < strategies.size() && strategies[next]->name() == name) p.balance.push_back(std::move(strategies[next++]));
  }
  // A balance plugin configured without plugins.balance (LoadAware's older form) runs first.
  if (load) p.balance.insert(p.balance.begin(), std::move(load));
  for (; next < strategies.size(); ++next) p.balance.push_back(std::move(strategies[next]));
  if (gang) p.balance.push_back(std::move(gang));
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
