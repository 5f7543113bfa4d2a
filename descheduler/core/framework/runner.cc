#include "descheduler/core/framework/runner.h"

#include <chrono>
#include <optional>

#include "descheduler/core/framework/default_evictor.h"

namespace weft::descheduler::framework {
namespace {

// The loads the profiles read: given, or asked of the caller once (CycleInputs::later_profile_loads).
class CycleLoads {
 public:
  explicit CycleLoads(const CycleInputs& in) : in_(in) {
    if (!in.later_profile_loads) resolved_ = in.profile_loads;
  }
  // Profile i's load (empty while the loads could not be read: the cycle then ends).
  const LoadReport& of(size_t profile) {
    (void)resolve();
    const auto& loads = *resolved_;
    return profile < loads.size() && loads[profile] ? *loads[profile] : in_.load;
  }
  Status resolve() {
    if (!resolved_) {
      auto loads = in_.later_profile_loads();
      if (!loads) failed_ = loads.error();
      resolved_ = loads ? std::move(*loads) : std::vector<const LoadReport*>{};
    }
    return failed_;
  }

 private:
  const CycleInputs& in_;
  std::optional<std::vector<const LoadReport*>> resolved_;
  Status failed_;
};

class CycleHandle final : public Handle {
 public:
  CycleHandle(const CycleInputs& in, CycleLoads& loads, size_t profile, Evictor& evictor, Plan& plan)
      : in_(in), loads_(loads), profile_(profile), evictor_(evictor), plan_(plan) {}

  const Cluster& cluster() const override { return in_.cluster; }
  Evictor& evictor() override { return evictor_; }
  TimePoint now() const override { return in_.now; }
  const LoadReport& load() const override { return loads_.of(profile_); }
  const DeschedulerState& state() const override { return in_.state; }
  void skip(int pod, const std::string& reason) override {
    const PodInfo& p = in_.cluster.pods[static_cast<size_t>(pod)];
    plan_.skipped.push_back({p.ns, p.name, in_.cluster.nodes[static_cast<size_t>(p.node)].name, reason});
  }
  void note(const std::string& text) override { plan_.notes.push_back(text); }
  Plan& plan() override { return plan_; }

 private:
  const CycleInputs& in_;
  CycleLoads& loads_;
  const size_t profile_;
  Evictor& evictor_;
  Plan& plan_;
};

}  // namespace

std::vector<int> profile_nodes(const Cluster& cluster, const Policy& policy) {
  std::vector<int> out;
  out.reserve(cluster.nodes.size());
  for (size_t i = 0; i < cluster.nodes.size(); ++i) {
    const NodeInfo& node = cluster.nodes[i];
    if (node.ready && (!policy.node_selector || policy.node_selector->matches(node.labels)))
      out.push_back(static_cast<int>(i));
  }
  return out;
}

Result<Plan> run_profiles(std::span<const Profile> profiles, const Policy& policy, const CycleInputs& in) {
  Plan plan;
  CycleLedger ledger(in.cluster, in.state,
                     LedgerOptions{in.now, in.cooldown, policy.max_per_node, policy.max_per_namespace, policy.max_total},
                     plan);
  CycleLoads loads(in);
  std::vector<std::unique_ptr<DefaultEvictor>> evictors;
  std::vector<CycleHandle> handles;
  handles.reserve(profiles.size());
  bool asks_fit = false;   // an evictor with nodeFit asks the fit of every candidate
  for (size_t i = 0; i < profiles.size(); ++i) {
    const Profile& p = profiles[i];
    const bool node_fit = p.node_fit.value_or(p.evictor.node_fit);
    asks_fit |= node_fit;
    auto evictor = DefaultEvictor::create(p.evictor, node_fit, ledger);
    if (!evictor) return profiles.size() > 1 ? wrap(evictor.error(), "profile " + p.name) : evictor.error();
    evictors.push_back(std::move(*evictor));
    handles.emplace_back(in, loads, i, *evictors.back(), plan);
  }
  const std::vector<int> nodes = profile_nodes(in.cluster, policy);
  if (nodes.size() < 2) {
    if (auto s = loads.resolve(); !s) return s.error();
    plan.notes.push_back("skipping the cycle: it needs at least 2 ready nodes, " + std::to_string(nodes.size()) +
                         " found (as upstream)");
    return plan;
  }
  if (asks_fit) ledger.build_fit_ahead();
  // As upstream, a plugin's error is reported and the others still run; what it evicted
  // stands. What one call added to the plan is its profile's and plugin's, and it is timed.
  auto run = [&](const std::string& profile, const Plugin& p, auto&& call) {
    const size_t evicted = plan.evictions.size(), skipped = plan.skipped.size(), classified = plan.nodes.size();
    const auto start = std::chrono::steady_clock::now();
    const Status s = call();
    plan.plugin_runs.push_back(
        {profile, p.name(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
    if (!s) plan.notes.push_back("plugin " + p.name() + " finished with error: " + s.message());
    for (size_t k = evicted; k < plan.evictions.size(); ++k) plan.evictions[k].profile = profile;
    for (size_t k = skipped; k < plan.skipped.size(); ++k) {
      plan.skipped[k].profile = profile;
      plan.skipped[k].plugin = p.name();
    }
    for (size_t k = classified; k < plan.nodes.size(); ++k) plan.nodes[k].by = {profile, p.name()};
  };
  for (size_t i = 0; i < profiles.size(); ++i)
    for (const auto& p : profiles[i].deschedule)
      run(profiles[i].name, *p, [&] { return p->deschedule(nodes, handles[i]); });
  if (auto s = loads.resolve(); !s) return s.error();
  for (size_t i = 0; i < profiles.size(); ++i)
    for (const auto& p : profiles[i].balance) run(profiles[i].name, *p, [&] { return p->balance(nodes, handles[i]); });
  return plan;
}

}  // namespace weft::descheduler::framework
