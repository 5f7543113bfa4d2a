#include "descheduler/core/profiles.h"

#include "descheduler/core/defragment/plugin.h"
#include "descheduler/core/framework/runner.h"
#include "descheduler/core/plugins/LoadAware/load_aware.h"
#include "descheduler/core/plugins/registry/registry.h"

namespace weft::descheduler {

namespace {

framework::Profile runner_profile(const PolicyProfile& profile) {
  framework::Profile p;
  p.name = profile.name;
  p.evictor = profile.evictor;
  p.node_fit = profile.load_aware.node_fit;
  return p;
}

}  // namespace

Result<framework::Profile> profile_from_policy(const PolicyProfile& enabled, const ProfileContext& context) {
  framework::Profile p = runner_profile(enabled);
  plugins::add_to_profile(enabled, p);   // the upstream strategies the profile enables
  std::vector<std::unique_ptr<framework::BalancePlugin>> strategies = std::move(p.balance);
  p.balance.clear();
  std::unique_ptr<framework::BalancePlugin> load, gang;
  if (enabled.load_aware_enabled) load = std::make_unique<plugins::LoadAware>(enabled.load_aware, context.options);
  if (enabled.gang_defragment) {
    if (!context.world) return make_error("GangDefragment needs the cluster's pending pods, Queues and HyperNodes");
    gang = std::make_unique<defragment::GangDefragment>(
        *context.world, *enabled.gang_defragment, defragment::Options{context.options.now, context.options.cooldown});
  }
  // Balance plugins run in the order the profile enables them, as upstream.
  size_t next = 0;
  for (const auto& name : enabled.balance_order) {
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

Result<std::vector<framework::Profile>> profiles_from_policy(const Policy& policy, const ProfileContext& context) {
  std::vector<framework::Profile> out;
  for (const auto& profile : policy.profiles) {
    auto p = profile_from_policy(profile, context);
    if (!p) return p.error();
    out.push_back(std::move(*p));
  }
  return out;
}

Result<Plan> make_plan(const Cluster& cluster, const LoadReport& load, const Policy& policy,
                       const DeschedulerState& state, const PlanOptions& options) {
  std::vector<framework::Profile> profiles;
  for (const auto& profile : policy.profiles) {
    if (!profile.load_aware_enabled) continue;
    framework::Profile p = runner_profile(profile);
    p.balance.push_back(std::make_unique<plugins::LoadAware>(profile.load_aware, options));
    profiles.push_back(std::move(p));
  }
  return framework::run_profiles(profiles, policy, {cluster, load, state, options.now, options.cooldown});
}

}  // namespace weft::descheduler
