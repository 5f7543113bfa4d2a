#include "descheduler/core/plugins/registry/registry.h"

#include <array>

#include "descheduler/core/plugins/HighNodeUtilization/high_node_utilization.h"
#include "descheduler/core/plugins/PodLifeTime/pod_lifetime.h"
#include "descheduler/core/plugins/RemoveDuplicates/remove_duplicates.h"
#include "descheduler/core/plugins/RemoveFailedPods/remove_failed_pods.h"
#include "descheduler/core/plugins/RemovePodsHavingTooManyRestarts/too_many_restarts.h"
#include "descheduler/core/plugins/RemovePodsViolatingInterPodAntiAffinity/inter_pod_anti_affinity.h"
#include "descheduler/core/plugins/RemovePodsViolatingNodeAffinity/node_affinity.h"
#include "descheduler/core/plugins/RemovePodsViolatingTopologySpreadConstraint/topology_spread.h"
#include "descheduler/core/plugins/RemovePodsViolatingNodeTaints/node_taints.h"

namespace weft::descheduler::plugins {
namespace {

// Reads, defaults and validates the args, then makes the plugin that holds them.
template <class P, auto Parse>
Result<std::shared_ptr<framework::Plugin>> make(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  auto parsed = Parse(c, a, path);
  if (!parsed) return parsed.error();
  return std::shared_ptr<framework::Plugin>(std::make_shared<P>(std::move(*parsed)));
}

constexpr std::array kPlugins = {
    Registration{remove_duplicates::kName, false, true, &make<remove_duplicates::Plugin, &remove_duplicates::parse_args>},
    Registration{high_node_utilization::kName, false, true, &make<high_node_utilization::Plugin, &high_node_utilization::parse_args>},
    Registration{pod_lifetime::kName, true, false, &make<pod_lifetime::Plugin, &pod_lifetime::parse_args>},
    Registration{remove_failed_pods::kName, true, false, &make<remove_failed_pods::Plugin, &remove_failed_pods::parse_args>},
    Registration{too_many_restarts::kName, true, false, &make<too_many_restarts::Plugin, &too_many_restarts::parse_args>},
    Registration{node_affinity::kName, true, false, &make<node_affinity::Plugin, &node_affinity::parse_args>},
    Registration{node_taints::kName, true, false, &make<node_taints::Plugin, &node_taints::parse_args>},
    Registration{inter_pod_anti_affinity::kName, true, false,
                 &make<inter_pod_anti_affinity::Plugin, &inter_pod_anti_affinity::parse_args>},
    Registration{topology_spread::kName, false, true, &make<topology_spread::Plugin, &topology_spread::parse_args>},
};

// The profile owns its plugins; these forward to the ones the policy made.
class SharedDeschedule final : public framework::DeschedulePlugin {
 public:
  explicit SharedDeschedule(std::shared_ptr<framework::Plugin> p) : p_(std::move(p)) {}
  std::string name() const override { return p_->name(); }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& handle) override {
    return dynamic_cast<framework::DeschedulePlugin&>(*p_).deschedule(nodes, handle);
  }

 private:
  std::shared_ptr<framework::Plugin> p_;
};

class SharedBalance final : public framework::BalancePlugin {
 public:
  explicit SharedBalance(std::shared_ptr<framework::Plugin> p) : p_(std::move(p)) {}
  std::string name() const override { return p_->name(); }
  Status balance(const std::vector<int>& nodes, framework::Handle& handle) override {
    return dynamic_cast<framework::BalancePlugin&>(*p_).balance(nodes, handle);
  }

 private:
  std::shared_ptr<framework::Plugin> p_;
};

}  // namespace

void add_to_profile(const PolicyProfile& enabled, framework::Profile& profile) {
  for (const auto& s : enabled.strategies) {
    if (s.balance) profile.balance.push_back(std::make_unique<SharedBalance>(s.plugin));
    else profile.deschedule.push_back(std::make_unique<SharedDeschedule>(s.plugin));
  }
}

const Registration* find(const std::string& name) {
  for (const auto& r : kPlugins)
    if (name == r.name) return &r;
  return nullptr;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& r : kPlugins) out.emplace_back(r.name);
  return out;
}

}  // namespace weft::descheduler::plugins
