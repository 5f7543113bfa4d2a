#include "descheduler/core/framework/runner.h"

#include "descheduler/core/framework/default_evictor.h"

namespace weft::descheduler::framework {
namespace {

class CycleHandle final : public Handle {
 public:
  CycleHandle(const CycleInputs& in, Evictor& evictor, Plan& plan) : in_(in), evictor_(evictor), plan_(plan) {}

  const Cluster& cluster() const override { return in_.cluster; }
  Evictor& evictor() override { return evictor_; }
  TimePoint now() const override { return in_.now; }
  const LoadReport& load() const override { return in_.load; }
  const DeschedulerState& state() const override { return in_.state; }
  void skip(int pod, const std::string& reason) override {
    const PodInfo& p = in_.cluster.pods[static_cast<size_t>(pod)];
    plan_.skipped.push_back({p.ns, p.name, in_.cluster.nodes[static_cast<size_t>(p.node)].name, reason});
  }
  void note(const std::string& text) override { plan_.notes.push_back(text); }
  Plan& plan() override { return plan_; }

 private:
  const CycleInputs& in_;
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

Result<Plan> run_profile(const Profile& profile, const Policy& policy, const CycleInputs& in) {
  Plan plan;
  EvictorOptions options = evictor_options(policy, in.now, in.cooldown);
  auto evictor = DefaultEvictor::create(profile.evictor, in.cluster, in.state, options, plan);
  if (!evictor) return evictor.error();
  CycleHandle handle(in, **evictor, plan);
  const std::vector<int> nodes = profile_nodes(in.cluster, policy);
  if (nodes.size() < 2) {
    plan.notes.push_back("skipping the cycle: it needs at least 2 ready nodes, " + std::to_string(nodes.size()) +
                         " found (as upstream)");
    return plan;
  }
  // As upstream, a plugin's error is reported and the others still run; what it evicted stands.
  auto report = [&](const Plugin& p, const Status& s) {
    if (!s) plan.notes.push_back("plugin " + p.name() + " finished with error: " + s.message());
  };
  for (const auto& p : profile.deschedule) report(*p, p->deschedule(nodes, handle));
  for (const auto& p : profile.balance) report(*p, p->balance(nodes, handle));
  return plan;
}

}  // namespace weft::descheduler::framework
