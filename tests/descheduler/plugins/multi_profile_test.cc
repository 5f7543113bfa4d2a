// Several profiles in one cycle, as upstream's descheduler.go runs them: every profile's
// Deschedule plugins, then every profile's Balance plugins, profiles in order; each
// profile's plugins filtered by that profile's own DefaultEvictor; the eviction limits
// (upstream's one PodEvictor) and weft's cross-plugin rules (a pod evicted once, a gang's
// minMember, budgets) counted across all of them.
#include <gtest/gtest.h>

#include <functional>

#include "descheduler/core/framework/runner.h"
#include "descheduler/core/plan_output.h"
#include "descheduler/core/profiles.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

// A plugin at both extension points that records its call, then asks its profile's
// evictor for each of `pods` and records the answers ("pod:" when evicted).
class Asking final : public framework::DeschedulePlugin, public framework::BalancePlugin {
 public:
  Asking(std::string name, std::vector<std::string>& log, std::vector<std::string> pods = {})
      : name_(std::move(name)), log_(log), pods_(std::move(pods)) {}
  std::string name() const override { return name_; }
  Status deschedule(const std::vector<int>&, framework::Handle& h) override { return run(h); }
  Status balance(const std::vector<int>&, framework::Handle& h) override { return run(h); }

 private:
  Status run(framework::Handle& h) {
    log_.push_back(name_);
    for (const auto& pod : pods_) {
      int index = -1;
      for (size_t i = 0; i < h.cluster().pods.size(); ++i)
        if (h.cluster().pods[i].name == pod) index = static_cast<int>(i);
      log_.push_back(name_ + " " + pod + ":" + h.evictor().evict({index, -1, "test", name_}));
    }
    return {};
  }
  std::string name_;
  std::vector<std::string>& log_;
  std::vector<std::string> pods_;
};

framework::Profile profile(const std::string& name, EvictorArgs evictor = {}) {
  framework::Profile p;
  p.name = name;
  p.evictor = std::move(evictor);
  return p;
}

enum class Point { Deschedule, Balance };

// Profiles A and B with one Asking plugin each at `point`, asking for their pods.
std::vector<framework::Profile> asking_profiles(std::vector<std::string>& log, Point point, std::vector<std::string> a,
                                                std::vector<std::string> b) {
  std::vector<framework::Profile> profiles;
  for (auto& [name, pods] : {std::pair{std::string("A"), std::move(a)}, std::pair{std::string("B"), std::move(b)}}) {
    profiles.push_back(profile(name));
    auto plugin = std::make_unique<Asking>(name, log, pods);
    if (point == Point::Balance) profiles.back().balance.push_back(std::move(plugin));
    else profiles.back().deschedule.push_back(std::move(plugin));
  }
  return profiles;
}

Plan run(const std::vector<framework::Profile>& profiles, const Cluster& c, const Policy& policy = {}) {
  const LoadReport load;
  const DeschedulerState state;
  auto plan = framework::run_profiles(profiles, policy, {c, load, state, t0(), Seconds(600)});
  EXPECT_TRUE(plan.ok()) << plan.message();
  return plan.ok() ? *plan : Plan{};
}

// Profiles A and B, each with an Asking Deschedule plugin and a `BalancePlugin` (made of
// its name and the log), named "deschedule A", "balance A", ...
template <class BalancePlugin>
std::vector<framework::Profile> deschedule_then_balance(std::vector<std::string>& log) {
  std::vector<framework::Profile> profiles;
  for (const char* name : {"A", "B"}) {
    profiles.push_back(profile(name));
    profiles.back().deschedule.push_back(std::make_unique<Asking>(std::string("deschedule ") + name, log));
    profiles.back().balance.push_back(std::make_unique<BalancePlugin>(std::string("balance ") + name, log));
  }
  return profiles;
}

using LoadsRead = Result<std::vector<const LoadReport*>>;

// A cycle whose loads are given later, by `later`.
Result<Plan> run_with_later_loads(const std::vector<framework::Profile>& profiles, const Cluster& c,
                                  std::function<LoadsRead()> later) {
  const LoadReport none;
  const DeschedulerState state;
  framework::CycleInputs in{c, none, state, t0(), Seconds(600)};
  in.later_profile_loads = std::move(later);
  return framework::run_profiles(profiles, Policy{}, in);
}

Policy parsed(const std::string& profiles, const std::string& top = "") {
  auto p = parse_policy_text("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" + top + "profiles:\n" + profiles,
                             "policy.yaml");
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? std::move(*p) : Policy{};
}

// Each profile's plugins are filtered by that profile's own DefaultEvictor: the strict
// profile's priorityThreshold keeps the pod its plugin asks for; the other's default
// threshold (system-cluster-critical) lets its plugin evict it.
TEST(MultiProfile, EachProfilesPluginsAreFilteredByItsOwnEvictor) {
  const Cluster c = build({node("n1"), node("n2"), pod("important", "n1", {.priority = 500})});
  std::vector<std::string> log;
  EvictorArgs strict;
  strict.priority_threshold.value = 100;
  std::vector<framework::Profile> profiles;
  profiles.push_back(profile("strict", strict));
  profiles.back().deschedule.push_back(std::make_unique<Asking>("A", log, std::vector<std::string>{"important"}));
  profiles.push_back(profile("lenient"));
  profiles.back().deschedule.push_back(std::make_unique<Asking>("B", log, std::vector<std::string>{"important"}));
  Plan plan = run(profiles, c);
  EXPECT_EQ(log, (std::vector<std::string>{"A", "A important:priority-threshold", "B", "B important:"}));
  ASSERT_EQ(plan.evictions.size(), 1u);
  EXPECT_EQ(plan.evictions[0].plugin, "B");
}

// The same from a policy: two profiles with different DefaultEvictor args (refused before
// as "DefaultEvictor args differ") each keep theirs in the profile the runner runs.
TEST(MultiProfile, APolicysProfilesKeepTheirOwnEvictorArgs) {
  Policy policy = parsed(R"(- name: strict
  pluginConfig:
  - {name: DefaultEvictor, args: {priorityThreshold: {value: 100}, nodeFit: true}}
  - {name: RemovePodsHavingTooManyRestarts, args: {podRestartThreshold: 10}}
  plugins: {deschedule: {enabled: [RemovePodsHavingTooManyRestarts]}}
- name: plain
  plugins: {deschedule: {enabled: [PodLifeTime]}}
  pluginConfig:
  - {name: PodLifeTime, args: {maxPodLifeTimeSeconds: 60}}
)");
  auto profiles = profiles_from_policy(policy, {});
  ASSERT_TRUE(profiles.ok()) << profiles.message();
  ASSERT_EQ(profiles->size(), 2u);
  EXPECT_EQ((*profiles)[0].name, "strict");
  EXPECT_EQ((*profiles)[0].evictor.priority_threshold.value, std::optional<int32_t>(100));
  EXPECT_TRUE((*profiles)[0].evictor.node_fit);
  ASSERT_EQ((*profiles)[0].deschedule.size(), 1u);
  EXPECT_EQ((*profiles)[0].deschedule[0]->name(), "RemovePodsHavingTooManyRestarts");
  EXPECT_EQ((*profiles)[1].name, "plain");
  EXPECT_FALSE((*profiles)[1].evictor.priority_threshold.value);
  EXPECT_FALSE((*profiles)[1].evictor.node_fit);
  ASSERT_EQ((*profiles)[1].deschedule.size(), 1u);
  EXPECT_EQ((*profiles)[1].deschedule[0]->name(), "PodLifeTime");
}

// descheduler.go runProfiles: every profile's Deschedule plugins before any profile's
// Balance plugins, profiles in order.
TEST(MultiProfile, EveryDeschedulePluginRunsBeforeAnyBalancePlugin) {
  const Cluster c = build({node("n1"), node("n2")});
  std::vector<std::string> log;
  run(deschedule_then_balance<Asking>(log), c);
  EXPECT_EQ(log, (std::vector<std::string>{"deschedule A", "deschedule B", "balance A", "balance B"}));
}

// A plugin at both extension points that records its call and the load its handle reads.
class LoadReading final : public framework::DeschedulePlugin, public framework::BalancePlugin {
 public:
  LoadReading(std::string name, std::vector<std::string>& log) : name_(std::move(name)), log_(log) {}
  std::string name() const override { return name_; }
  Status deschedule(const std::vector<int>&, framework::Handle& h) override { return run(h); }
  Status balance(const std::vector<int>&, framework::Handle& h) override { return run(h); }

 private:
  Status run(framework::Handle& h) {
    log_.push_back(name_ + " reads " + h.load().source_name);
    return {};
  }
  std::string name_;
  std::vector<std::string>& log_;
};

// `plan` reads its load file while the Deschedule plugins run: loads given later are asked
// for once, after every Deschedule plugin and before the first Balance plugin; each profile
// then reads its own.
TEST(MultiProfile, LoadsGivenLaterAreAskedOnceBeforeTheBalancePlugins) {
  const Cluster c = build({node("n1"), node("n2")});
  std::vector<std::string> log;
  LoadReport first, second;
  first.source_name = "file a";
  second.source_name = "file b";
  auto plan = run_with_later_loads(deschedule_then_balance<LoadReading>(log), c, [&]() -> LoadsRead {
    log.push_back("loads read");
    return std::vector<const LoadReport*>{&first, &second};
  });
  ASSERT_TRUE(plan.ok()) << plan.message();
  EXPECT_EQ(log, (std::vector<std::string>{"deschedule A", "deschedule B", "loads read", "balance A reads file a",
                                           "balance B reads file b"}));
}

// A Deschedule plugin that reads a load asks for the loads then; they are not asked again.
TEST(MultiProfile, ADeschedulePluginReadingALoadAsksForTheLoadsGivenLater) {
  const Cluster c = build({node("n1"), node("n2")});
  std::vector<std::string> log;
  std::vector<framework::Profile> profiles;
  profiles.push_back(profile("A"));
  profiles.back().deschedule.push_back(std::make_unique<LoadReading>("deschedule A", log));
  profiles.back().balance.push_back(std::make_unique<LoadReading>("balance A", log));
  LoadReport report;
  report.source_name = "file a";
  auto plan = run_with_later_loads(profiles, c, [&]() -> LoadsRead {
    log.push_back("loads read");
    return std::vector<const LoadReport*>{&report};
  });
  ASSERT_TRUE(plan.ok()) << plan.message();
  EXPECT_EQ(log, (std::vector<std::string>{"loads read", "deschedule A reads file a", "balance A reads file a"}));
}

// Loads that could not be read end the cycle before any Balance plugin, with their error,
// as they end it before any plugin when read first; with fewer than two nodes too.
TEST(MultiProfile, LoadsGivenLaterThatFailEndTheCycleWithTheirError) {
  for (int nodes : {2, 1}) {
    const Cluster c = nodes == 2 ? build({node("n1"), node("n2")}) : build({node("n1")});
    std::vector<std::string> log;
    std::vector<framework::Profile> profiles;
    profiles.push_back(profile("A"));
    profiles.back().deschedule.push_back(std::make_unique<Asking>("deschedule A", log));
    profiles.back().balance.push_back(std::make_unique<LoadReading>("balance A", log));
    auto plan = run_with_later_loads(profiles, c, []() -> LoadsRead {
      return make_error("load file load.json: pods[3]: cpu: not a number");
    });
    ASSERT_FALSE(plan.ok()) << nodes;
    EXPECT_EQ(plan.message(), "load file load.json: pods[3]: cpu: not a number");
    EXPECT_EQ(log, nodes == 2 ? std::vector<std::string>{"deschedule A"} : std::vector<std::string>{});
  }
}

// Upstream's one PodEvictor: maxNoOfPodsToEvictTotal and ...PerNode count every profile's
// evictions.
TEST(MultiProfile, EvictionLimitsAreSharedAcrossProfiles) {
  const Cluster c = build({node("n1"), node("n2"), pod("p1", "n1"), pod("p2", "n1"), pod("p3", "n2")});
  auto two_profiles = [](std::vector<std::string>& log) {
    return asking_profiles(log, Point::Deschedule, {"p1"}, {"p2", "p3"});
  };
  Policy total;
  total.max_total = 1;
  std::vector<std::string> log;
  Plan plan = run(two_profiles(log), c, total);
  EXPECT_EQ(log, (std::vector<std::string>{"A", "A p1:", "B", "B p2:limit-total", "B p3:limit-total"}));
  EXPECT_EQ(plan.evictions.size(), 1u);
  // A refusal is the asking profile's and plugin's (upstream's pods_evicted_total labels).
  ASSERT_EQ(plan.skipped.size(), 2u);
  EXPECT_EQ(plan.skipped[0].profile + "/" + plan.skipped[0].plugin, "B/B");
  Policy per_node;
  per_node.max_per_node = 1;
  log.clear();
  plan = run(two_profiles(log), c, per_node);
  EXPECT_EQ(log, (std::vector<std::string>{"A", "A p1:", "B", "B p2:limit-per-node", "B p3:"}));
  EXPECT_EQ(plan.evictions.size(), 2u);
}

// A pod one profile evicted is not evicted again by another.
TEST(MultiProfile, APodIsEvictedOncePerCycle) {
  const Cluster c = build({node("n1"), node("n2"), pod("p1", "n1")});
  std::vector<std::string> log;
  Plan plan = run(asking_profiles(log, Point::Balance, {"p1"}, {"p1"}), c);
  EXPECT_EQ(log, (std::vector<std::string>{"A", "A p1:", "B", "B p1:evicted"}));
  EXPECT_EQ(plan.evictions.size(), 1u);
}

// A gang is kept at minMember whichever profiles evict its pods.
TEST(MultiProfile, AGangsMinMemberIsCountedAcrossProfiles) {
  std::vector<json> objs = {node("n1"), node("n2"), podgroup("train", 2)};
  for (const char* name : {"train-0", "train-1", "train-2"})
    objs.push_back(pod(name, "n1", {.owner_kind = "Job", .owner = "train", .group = "train"}));
  const Cluster c = build(objs);
  std::vector<std::string> log;
  Plan plan = run(asking_profiles(log, Point::Deschedule, {"train-0"}, {"train-1"}), c);
  EXPECT_EQ(log, (std::vector<std::string>{"A", "A train-0:", "B", "B train-1:gang-min-member"}));
  EXPECT_EQ(plan.evictions.size(), 1u);
}

// Two profiles each enabling LowNodeUtilization (refused before as "a second profile
// enables a balance plugin"), each with its own thresholds: each classifies the nodes by
// its own resource and evicts from the node it finds high; the plan names which
// profile's plugin classified each verdict.
TEST(MultiProfile, TwoLowNodeUtilizationProfilesEachAct) {
  Policy policy = parsed(R"(- name: cpu
  pluginConfig:
  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}}
  plugins: {balance: {enabled: [LowNodeUtilization]}}
- name: memory
  pluginConfig:
  - {name: LowNodeUtilization, args: {thresholds: {memory: 20}, targetThresholds: {memory: 50}}}
  plugins: {balance: {enabled: [LowNodeUtilization]}}
)");
  ASSERT_EQ(policy.profiles.size(), 2u);
  std::vector<json> objs = {node("cpu-busy"), node("idle"), node("memory-busy")};
  for (int i = 0; i < 4; ++i) {
    objs.push_back(pod("c" + std::to_string(i), "cpu-busy", {.cpu = "3", .memory = "1Gi"}));
    objs.push_back(pod("m" + std::to_string(i), "memory-busy", {.cpu = "500m", .memory = "12Gi"}));
  }
  const Cluster c = build(objs);
  auto profiles = profiles_from_policy(policy, {});
  ASSERT_TRUE(profiles.ok()) << profiles.message();
  Plan plan = run(*profiles, c, policy);
  std::set<std::string> from;
  for (const auto& e : plan.evictions) {
    from.insert(e.from);
    EXPECT_EQ(e.plugin, "LowNodeUtilization");
  }
  EXPECT_EQ(from, (std::set<std::string>{"cpu-busy", "memory-busy"})) << plan_to_json(plan).dump(2);
  // Each eviction and each plugin run is its profile's (upstream's "profile" label).
  std::set<std::pair<std::string, std::string>> evicted_by;   // (profile, from)
  for (const auto& e : plan.evictions) evicted_by.insert({e.profile, e.from});
  EXPECT_EQ(evicted_by, (std::set<std::pair<std::string, std::string>>{{"cpu", "cpu-busy"}, {"memory", "memory-busy"}}));
  ASSERT_EQ(plan.plugin_runs.size(), 2u);
  EXPECT_EQ(plan.plugin_runs[1].profile + "/" + plan.plugin_runs[1].plugin, "memory/LowNodeUtilization");
  // Each classifier's counts apart: three nodes each, never six under one.
  const ClassCounts counts = class_counts(plan);
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts.at({"cpu", "LowNodeUtilization"}).at(NodeClass::High), 1);
  EXPECT_EQ(counts.at({"memory", "LowNodeUtilization"}).at(NodeClass::High), 1);
  std::map<std::string, std::string> high;   // node -> the profile that found it high
  for (const auto& v : plan.nodes)
    if (v.cls == NodeClass::High) high[v.name] = v.by.text();
  EXPECT_EQ(high, (std::map<std::string, std::string>{{"cpu-busy", "cpu/LowNodeUtilization"},
                                                      {"memory-busy", "memory/LowNodeUtilization"}}));
  // With two classifications the plan output says whose each verdict is.
  const json out = plan_to_json(plan);
  ASSERT_EQ(out["nodes"].size(), 6u);
  EXPECT_EQ(out["nodes"][0]["by"], "cpu/LowNodeUtilization");
}

// One classification: the plan's nodes keep their one-profile form.
TEST(MultiProfile, OneClassificationKeepsThePlanFormat) {
  Policy policy = parsed(R"(- name: cpu
  pluginConfig:
  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}}
  plugins: {balance: {enabled: [LowNodeUtilization]}}
)");
  const Cluster c = build({node("a"), node("b"), pod("p", "a", {.cpu = "12"})});
  auto profiles = profiles_from_policy(policy, {});
  ASSERT_TRUE(profiles.ok()) << profiles.message();
  const json out = plan_to_json(run(*profiles, c, policy));
  ASSERT_EQ(out["nodes"].size(), 2u);
  EXPECT_FALSE(out["nodes"][0].contains("by"));
}

// GangDefragment (weft's own) beside a balance plugin of another profile is accepted; in
// two profiles it is refused (weft runs one set of rooms per cycle).
TEST(MultiProfile, GangDefragmentInOneProfileOnly) {
  const std::string lnu = R"(- name: balance
  pluginConfig:
  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}}
  plugins: {balance: {enabled: [LowNodeUtilization]}}
)";
  const std::string gang = "- name: gangs\n  plugins: {balance: {enabled: [GangDefragment]}}\n";
  Policy both = parsed(lnu + gang);
  ASSERT_EQ(both.profiles.size(), 2u);
  EXPECT_TRUE(both.profiles[0].load_aware_enabled);
  EXPECT_TRUE(both.profiles[1].gang_defragment.has_value());
  EXPECT_EQ(both.gang_profile(), &both.profiles[1]);
  auto twice = parse_policy_text("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n" + gang +
                                     "- name: more\n  plugins: {balance: {enabled: [GangDefragment]}}\n",
                                 "policy.yaml");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("profiles[1]: a second profile enables GangDefragment"), std::string::npos)
      << twice.message();
}

// The state remembers moves for the longest metrics window of any profile.
TEST(MultiProfile, TheStatesWindowIsTheLongestProfiles) {
  Policy policy = parsed(R"(- name: short
  pluginConfig:
  - {name: LoadAware, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metrics: {type: Annotations, window: 2m}}}
  plugins: {balance: {enabled: [LoadAware]}}
- name: long
  pluginConfig:
  - {name: LoadAware, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metrics: {type: Annotations, window: 10m}}}
  plugins: {balance: {enabled: [LoadAware]}}
)");
  EXPECT_EQ(policy.largest_window(), Seconds(600));
}

}  // namespace
}  // namespace weft::descheduler::test
