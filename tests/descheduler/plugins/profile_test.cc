// The profile runner: the Kubernetes descheduler's profile_test.go (and descheduler.go's
// runProfiles) as facts. Deschedule plugins run before Balance plugins, each in the order
// enabled; a plugin evicts only through the profile's evictor; a plugin's error does not
// stop the others; plugins see the ready nodes the top-level nodeSelector selects, and a
// cycle with fewer than two such nodes runs nothing.
#include <gtest/gtest.h>

#include <functional>

#include "descheduler/core/framework/runner.h"
#include "descheduler/core/profiles.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

using Act = std::function<Status(const std::vector<int>& nodes, framework::Handle& handle)>;

// Records its calls (and the nodes it was given), then does `act`.
class Fake final : public framework::DeschedulePlugin, public framework::BalancePlugin {
 public:
  Fake(std::string name, std::vector<std::string>& calls, Act act = {})
      : name_(std::move(name)), calls_(calls), act_(std::move(act)) {}
  std::string name() const override { return name_; }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& h) override { return run(nodes, h); }
  Status balance(const std::vector<int>& nodes, framework::Handle& h) override { return run(nodes, h); }
  std::vector<int> seen;

 private:
  Status run(const std::vector<int>& nodes, framework::Handle& h) {
    calls_.push_back(name_);
    seen = nodes;
    return act_ ? act_(nodes, h) : Status{};
  }
  std::string name_;
  std::vector<std::string>& calls_;
  Act act_;
};

int pod_index(const Cluster& c, const std::string& name) {
  for (size_t i = 0; i < c.pods.size(); ++i)
    if (c.pods[i].name == name) return static_cast<int>(i);
  return -1;
}

// Asks the evictor to evict `pod` (no target named).
Act evicting(const std::string& pod) {
  return [pod](const std::vector<int>&, framework::Handle& h) -> Status {
    const int i = pod_index(h.cluster(), pod);
    if (std::string why = h.evictor().evict({i, -1, "test", "Fake"}); !why.empty()) return make_error("not evicted: " + why);
    return {};
  };
}

Plan run(const framework::Profile& profile, const Cluster& c, const Policy& policy = {}) {
  LoadReport load;
  DeschedulerState state;
  auto plan = framework::run_profile(profile, policy, {c, load, state, t0(), Seconds(600)});
  EXPECT_TRUE(plan.ok()) << plan.message();
  return plan.ok() ? *plan : Plan{};
}

Cluster two_nodes_one_pod() { return build({node("n1"), node("n2"), pod("pod_1_n1", "n1")}); }

// TestProfileDescheduleBalanceExtensionPointsEviction: the plugin's eviction goes through.
TEST(ProfileUpstream, DescheduleAndBalancePluginsEvictThroughTheEvictor) {
  const Cluster c = two_nodes_one_pod();
  std::vector<std::string> calls;
  for (bool balance : {false, true}) {
    framework::Profile p;
    if (balance) p.balance.push_back(std::make_unique<Fake>("FakePlugin", calls, evicting("pod_1_n1")));
    else p.deschedule.push_back(std::make_unique<Fake>("FakePlugin", calls, evicting("pod_1_n1")));
    Plan plan = run(p, c);
    ASSERT_EQ(plan.evictions.size(), 1u) << (balance ? "balance" : "deschedule");
    EXPECT_EQ(plan.evictions[0].pod(), "default/pod_1_n1");
  }
}

// TestProfileExtensionPointOrdering: each extension point in the order enabled, every
// Deschedule plugin before any Balance plugin.
TEST(ProfileUpstream, ExtensionPointsRunInTheOrderEnabled) {
  const Cluster c = two_nodes_one_pod();
  std::vector<std::string> calls;
  framework::Profile p;
  for (const char* name : {"FakePlugin_1", "FakePlugin_0", "FakePlugin_2"})
    p.balance.push_back(std::make_unique<Fake>(std::string("balance ") + name, calls));
  for (const char* name : {"FakePlugin_2", "FakePlugin_0", "FakePlugin_1"})
    p.deschedule.push_back(std::make_unique<Fake>(std::string("deschedule ") + name, calls));
  run(p, c);
  EXPECT_EQ(calls, (std::vector<std::string>{"deschedule FakePlugin_2", "deschedule FakePlugin_0", "deschedule FakePlugin_1",
                                             "balance FakePlugin_1", "balance FakePlugin_0", "balance FakePlugin_2"}));
}

std::vector<std::string> balance_names(const std::string& enabled) {
  auto policy = parse_policy_text(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}
  plugins:
    balance:
      enabled: )" + enabled + "\n",
                                  "policy.yaml");
  EXPECT_TRUE(policy.ok()) << policy.message();
  if (!policy.ok()) return {};
  auto profile = profile_from_policy(policy->profiles[0], {});
  EXPECT_TRUE(profile.ok()) << profile.message();
  std::vector<std::string> out;
  for (const auto& b : profile->balance) out.push_back(b->name());
  return out;
}

// The same for the plugins a policy enables: LowNodeUtilization runs where it is enabled.
TEST(ProfileUpstream, PolicyBalancePluginsRunInTheOrderEnabled) {
  EXPECT_EQ(balance_names("[RemoveDuplicates, LowNodeUtilization, RemovePodsViolatingTopologySpreadConstraint]"),
            (std::vector<std::string>{"RemoveDuplicates", "LowNodeUtilization", "RemovePodsViolatingTopologySpreadConstraint"}));
  EXPECT_EQ(balance_names("[LowNodeUtilization, RemoveDuplicates]"),
            (std::vector<std::string>{"LowNodeUtilization", "RemoveDuplicates"}));
}

// A plugin enabled at an extension point it does not implement is refused (upstream:
// "configures ... extension point of non-existing plugins").
TEST(ProfileUpstream, APluginAtAPointItDoesNotImplementIsRefused) {
  auto policy = [](const std::string& point, const std::string& plugin) {
    return parse_policy_text("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                             "  plugins:\n    " + point + ":\n      enabled: [" + plugin + "]\n",
                             "policy.yaml");
  };
  auto d = policy("balance", "PodLifeTime");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.message().find("profiles[0].plugins.balance: plugin PodLifeTime is a Deschedule plugin, not a Balance one"),
            std::string::npos)
      << d.message();
  auto b = policy("deschedule", "RemoveDuplicates");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.message().find("plugin RemoveDuplicates is a Balance plugin, not a Deschedule one"), std::string::npos)
      << b.message();
  auto f = policy("filter", "RemoveDuplicates");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("profiles[0].plugins.filter: plugin RemoveDuplicates is a Balance plugin, not a Filter/PreEvictionFilter one"), std::string::npos)
      << f.message();
}

// descheduler.go: a plugin's error is logged and the others still run; what it evicted stands.
TEST(ProfileUpstream, APluginErrorDoesNotStopTheOthers) {
  const Cluster c = build({node("n1"), node("n2"), pod("p1", "n1"), pod("p2", "n1")});
  std::vector<std::string> calls;
  framework::Profile p;
  p.deschedule.push_back(std::make_unique<Fake>("First", calls, [](const std::vector<int>& n, framework::Handle& h) {
    if (auto s = evicting("p1")(n, h); !s) return s;
    return Status(make_error("lost the API"));
  }));
  p.deschedule.push_back(std::make_unique<Fake>("Second", calls, evicting("p2")));
  p.balance.push_back(std::make_unique<Fake>("Third", calls));
  Plan plan = run(p, c);
  EXPECT_EQ(calls, (std::vector<std::string>{"First", "Second", "Third"}));
  ASSERT_EQ(plan.evictions.size(), 2u);
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("plugin First finished with error: lost the API"), std::string::npos) << plan.notes[0];
}

json not_ready(json n) {
  n["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "False"}}});
  return n;
}

// runProfiles: the nodes are the ready ones the top-level nodeSelector selects.
TEST(ProfileUpstream, PluginsSeeTheReadyNodesTheNodeSelectorSelects) {
  const Cluster c = build({node("a", {{"pool", "x"}}), not_ready(node("b", {{"pool", "x"}})), node("c", {{"pool", "y"}}),
                           node("d", {{"pool", "x"}})});
  Policy policy;
  policy.node_selector = kube::LabelSelector::parse("pool=x").value();
  std::vector<std::string> calls;
  framework::Profile p;
  auto fake = std::make_unique<Fake>("Fake", calls);
  Fake* seen = fake.get();
  p.deschedule.push_back(std::move(fake));
  run(p, c, policy);
  std::vector<std::string> names;
  for (int n : seen->seen) names.push_back(c.nodes[static_cast<size_t>(n)].name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "d"}));
}

// runProfiles: "Skipping descheduling cycle: requires >=2 nodes".
TEST(ProfileUpstream, FewerThanTwoReadyNodesRunNothing) {
  const Cluster c = build({node("n1"), not_ready(node("n2")), pod("p1", "n1")});
  std::vector<std::string> calls;
  framework::Profile p;
  p.deschedule.push_back(std::make_unique<Fake>("Fake", calls, evicting("p1")));
  Plan plan = run(p, c);
  EXPECT_TRUE(calls.empty());
  EXPECT_TRUE(plan.evictions.empty());
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("at least 2 ready nodes"), std::string::npos) << plan.notes[0];
}

// One evictor for the profile: a pod evicted at Deschedule is not evicted again at
// Balance, and the limits count every plugin's evictions.
TEST(ProfileUpstream, PluginsShareTheEvictorAndItsLimits) {
  const Cluster c = build({node("n1"), node("n2"), pod("p1", "n1"), pod("p2", "n1")});
  Policy policy;
  policy.max_total = 1;
  std::vector<std::string> calls;
  std::vector<std::string> answers;
  auto asking = [&](const std::string& pod) {
    return [&, pod](const std::vector<int>&, framework::Handle& h) -> Status {
      answers.push_back(pod + ":" + h.evictor().evict({pod_index(h.cluster(), pod), -1, "test", "Fake"}));
      return {};
    };
  };
  framework::Profile p;
  p.deschedule.push_back(std::make_unique<Fake>("D", calls, asking("p1")));
  p.balance.push_back(std::make_unique<Fake>("B1", calls, asking("p1")));
  p.balance.push_back(std::make_unique<Fake>("B2", calls, asking("p2")));
  Plan plan = run(p, c, policy);
  EXPECT_EQ(answers, (std::vector<std::string>{"p1:", "p1:evicted", "p2:limit-total"}));
  EXPECT_EQ(plan.evictions.size(), 1u);
}

}  // namespace
}  // namespace weft::descheduler::test
