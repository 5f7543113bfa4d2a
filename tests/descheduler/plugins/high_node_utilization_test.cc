// HighNodeUtilization: the Kubernetes descheduler's highnodeutilization_test.go as facts.
// Nodes of 4 (or 2) cores and 10 pods; every pod requests 400m cpu and no memory.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/HighNodeUtilization/high_node_utilization.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"
#include "tests/descheduler/upstream_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace hnu = plugins::high_node_utilization;

json small_pod(const std::string& name, const std::string& node_name) {
  return pod(name, node_name, {.cpu = "400m", .memory = "0"});
}

json worker(const std::string& name, const std::string& cpu = "4", bool unschedulable = false) {
  json n = node(name, {}, cpu, "3000", "10");
  if (unschedulable) n["spec"]["unschedulable"] = true;
  return n;
}

hnu::Args thresholds(double cpu, double pods) {
  hnu::Args a;
  a.thresholds = {{"cpu", cpu}, {"pods", pods}};
  return a;
}

std::vector<std::string> run(const hnu::Args& a, const std::vector<json>& objs, std::set<std::string> blocked = {}) {
  Cluster c = build(objs);
  TestHandle h(c, t0());
  h.recorder().blocked = std::move(blocked);
  hnu::Plugin plugin(a);
  return run_plugin(plugin, h);
}

using Keys = std::vector<std::string>;

TEST(HighNodeUtilization, NoNodeBelowThresholds) {
  std::vector<json> objs = {worker("n1"), worker("n2"), worker("n3")};
  for (int i = 1; i <= 9; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n" + std::to_string((i - 1) / 3 + 1)));
  EXPECT_EQ(run(thresholds(20, 20), objs), Keys{});
}

TEST(HighNodeUtilization, NoEvictablePods) {
  std::vector<json> objs = {worker("n1"), worker("n2"), worker("n3"), small_pod("p1", "n1"), small_pod("p2", "n1"),
                            small_pod("p3", "n2"), small_pod("p4", "n2")};
  for (int i = 5; i <= 8; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n3"));
  EXPECT_EQ(run(thresholds(40, 40), objs, {"default/p1", "default/p2", "default/p3", "default/p4"}), Keys{});
}

TEST(HighNodeUtilization, NoNodeToTakeThePods) {
  // n3 is above the thresholds but unschedulable: nowhere to go.
  std::vector<json> objs = {worker("n1"), worker("n2"), worker("n3", "4", true), small_pod("p1", "n1"),
                            small_pod("p2", "n2"), small_pod("p3", "n3"), small_pod("p4", "n3"), small_pod("p5", "n3")};
  EXPECT_EQ(run(thresholds(20, 20), objs), Keys{});
}

TEST(HighNodeUtilization, UnderutilizedNodesAreEmptied) {
  // n1 (p1 and a critical p2) and the unschedulable n3 (p7) are below 30 %; n2 takes them.
  std::vector<json> objs = {worker("n1"), worker("n2"), worker("n3", "4", true), small_pod("p1", "n1"),
                            small_pod("p2", "n1")};
  for (int i = 3; i <= 6; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n2"));
  objs.push_back(small_pod("p7", "n3"));
  Keys out = run(thresholds(30, 30), objs, {"default/p2"});
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, (Keys{"default/p1", "default/p7"}));
}

TEST(HighNodeUtilization, StopsWhenTheOtherNodesAreFull) {
  // 2-core nodes: n2 has 1600m of 2000m requested; one 400m pod fills it.
  std::vector<json> objs = {worker("n1", "2"), worker("n2", "2"), worker("n3", "2", true), small_pod("p1", "n1")};
  for (int i = 2; i <= 5; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n2"));
  objs.push_back(small_pod("p6", "n3"));
  EXPECT_EQ(run(thresholds(30, 30), objs).size(), 1u);
}

TEST(HighNodeUtilization, LowestPriorityFirst) {
  std::vector<json> objs = {worker("n1", "2"), worker("n2", "2"), pod("high", "n1", {.cpu = "400m", .memory = "0", .priority = 100}),
                            pod("low", "n1", {.cpu = "400m", .memory = "0", .priority = 1})};
  for (int i = 2; i <= 5; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n2"));
  // n1 at 40 % is under 50 %; n2 at 80 % has room for one pod: the low-priority one goes.
  EXPECT_EQ(run(thresholds(50, 50), objs), Keys{"default/low"});
}

// The rows of highnodeutilization_test.go not above, run as upstream runs them: through the
// DefaultEvictor with nodeFit. Nodes of 10 pods unless given.
std::vector<std::string> run_fit(const hnu::Args& a, const std::vector<json>& objs, bool node_fit = true,
                                 std::optional<int> per_node = std::nullopt) {
  Cluster c = build(objs);
  framework::EvictorOptions o = with_node_fit(node_fit);
  o.max_per_node = per_node;
  EvictorHandle h(c, {}, o);
  hnu::Plugin plugin(a);
  Keys out = run_plugin(plugin, h);
  for (auto& k : out) k = k.substr(k.find('/') + 1);
  std::sort(out.begin(), out.end());
  return out;
}

hnu::Args only(const std::map<std::string, double>& t, bool thresholding = false) {
  hnu::Args a;
  a.thresholds = t;
  a.only_thresholding_resources = thresholding;
  return a;
}

// The first rows of highnodeutilization_test.go with upstream's own pods (kinds as its
// setters build them), through the DefaultEvictor with nodeFit.
TEST(HighNodeUtilizationTable, NothingToMove) {
  struct Row {
    const char* name;
    hnu::Args args;
    std::vector<json> objs;
    size_t evicted;
  };
  std::vector<json> below = {unode("n1", "10"), unode("n2", "10"), unode("n3", "10")};
  for (int i = 1; i <= 9; ++i) below.push_back(upod("p" + std::to_string(i), "n" + std::to_string((i - 1) / 3 + 1)));
  // Every node at or below 40 %: all are underutilized, none can take the pods.
  std::vector<json> protected_pods = {unode("n1", "9"), unode("n2", "10"), unode("n3", "10"), upod("p1", "n1", Kind::Mirror),
                                      upod("p2", "n1", Kind::Critical), upod("p3", "n2", Kind::DS), upod("p4", "n2", Kind::DS)};
  for (int i = 5; i <= 8; ++i) protected_pods.push_back(upod("p" + std::to_string(i), "n3"));
  std::vector<json> nowhere = {unode("n1", "10"), unode("n2", "10"), unode("n3", "10", true), upod("p1", "n1"), upod("p2", "n2")};
  for (int i = 3; i <= 5; ++i) nowhere.push_back(upod("p" + std::to_string(i), "n3"));
  // 2-core nodes: n2 has 400m left, one pod's worth.
  std::vector<json> depleted = {unode("n1", "10", false, 0, {}, "2000m"), unode("n2", "10", false, 0, {}, "2000m"),
                                unode("n3", "10", true, 0, {}, "2000m"), upod("p1", "n1"), upod("p6", "n3")};
  for (int i = 2; i <= 5; ++i) depleted.push_back(upod("p" + std::to_string(i), "n2"));
  for (const Row& row : std::vector<Row>{{"no node below threshold usage", thresholds(20, 20), below, 0},
                                         {"no evictable pods", thresholds(40, 40), protected_pods, 0},
                                         {"no node to schedule evicted pods", thresholds(20, 20), nowhere, 0},
                                         {"without priorities stop when resource capacity is depleted",
                                          thresholds(30, 30), depleted, 1}})
    EXPECT_EQ(run_fit(row.args, row.objs).size(), row.evicted) << row.name;
}

// n1 holds p1 and the critical p2 (20 %), n2 four pods, the unschedulable n3 p7: p1 and p7 go.
TEST(HighNodeUtilizationTable, WithoutPriorities) {
  SCOPED_TRACE("upstream: without priorities");
  std::vector<json> objs = {unode("n1", "10"), unode("n2", "10"), unode("n3", "10", true), upod("p1", "n1"),
                            upod("p2", "n1", Kind::Critical), upod("p7", "n3")};
  for (int i = 3; i <= 6; ++i) objs.push_back(upod("p" + std::to_string(i), "n2"));
  EXPECT_EQ(run_fit(thresholds(30, 30), objs), (Keys{"p1", "p7"}));
}

// n2 (2 cores) has 400m left: the low-priority p1 takes it.
TEST(HighNodeUtilizationTable, WithPriorities) {
  SCOPED_TRACE("upstream: with priorities");
  std::vector<json> objs = {unode("n1", "10"), unode("n2", "10", false, 0, {}, "2000m"),
                            unode("n3", "10", true, 0, {}, "2000m"), upod("p1", "n1", Kind::RS, "400m", "0", 0),
                            upod("p2", "n1", Kind::RS, "400m", "0", 10000), upod("p9", "n3", Kind::DS)};
  for (int i = 5; i <= 8; ++i) objs.push_back(upod("p" + std::to_string(i), "n2"));
  EXPECT_EQ(run_fit(only({{"cpu", 30}}), objs), Keys{"p1"});
}

// n2 (5 pods) has room for one pod: the best-effort p1.
TEST(HighNodeUtilizationTable, BestEffortPodsOnly) {
  SCOPED_TRACE("upstream: without priorities evicting best-effort pods only");
  std::vector<json> objs = {unode("n1", "10", false, 0, {}, "3000m"), unode("n2", "5", false, 0, {}, "3000m"),
                            unode("n3", "10", true, 0, {}, "3000m"), upod("p1", "n1", Kind::BestEffort),
                            upod("p2", "n1")};
  for (int i = 3; i <= 6; ++i) objs.push_back(upod("p" + std::to_string(i), "n2"));
  EXPECT_EQ(run_fit(only({{"cpu", 30}}), objs), Keys{"p1"});
}

TEST(HighNodeUtilizationTable, ExtendedResource) {
  SCOPED_TRACE("upstream: with extended resource");
  SCOPED_TRACE("upstream: with extended resource in some of nodes");
  std::vector<json> objs = {unode("n1", "10", false, 8), unode("n2", "10", false, 8), unode("n3", "10", true),
                            with_ext(upod("p1", "n1", Kind::RS, "100m"), 1), with_ext(upod("p2", "n1", Kind::RS, "100m"), 1)};
  for (int i = 3; i <= 6; ++i) objs.push_back(with_ext(upod("p" + std::to_string(i), "n2", Kind::RS, "500m"), 1));
  EXPECT_EQ(run_fit(only({{"cpu", 20}, {kExt, 40}}), objs), (Keys{"p1", "p2"}));
  // n2 without the device: no room for it anywhere, nothing moves.
  std::vector<json> some = {unode("n1", "10", false, 8), unode("n2", "10"), unode("n3", "10", true),
                            with_ext(upod("p1", "n1", Kind::RS, "100m"), 1), with_ext(upod("p2", "n1", Kind::RS, "100m"), 1)};
  for (int i = 3; i <= 6; ++i) some.push_back(upod("p" + std::to_string(i), "n2", Kind::RS, "500m"));
  EXPECT_EQ(run_fit(only({{"cpu", 40}, {kExt, 40}}), some), Keys{});
}

// p5 (on the underutilized n2) selects datacenter=west: it goes only if n1 is west.
TEST(HighNodeUtilizationTable, OtherNodeMatchesThePodsSelector) {
  SCOPED_TRACE("upstream: Other node match pod node selector");
  SCOPED_TRACE("upstream: Other node does not match pod node selector");
  for (bool west : {true, false}) {
    std::map<std::string, std::string> labels;
    if (west) labels["datacenter"] = "west";
    std::vector<json> objs = {unode("n1", "9", false, 0, labels), unode("n2", "10"), upod("p1", "n1"), upod("p2", "n1"),
                              upod("p3", "n1"), upod("p4", "n1", Kind::DS)};
    json p5 = upod("p5", "n2");
    p5["spec"]["nodeSelector"] = {{"datacenter", "west"}};
    objs.push_back(p5);
    EXPECT_EQ(run_fit(thresholds(30, 30), objs), west ? Keys{"p5"} : Keys{}) << west;
  }
}

// n1 has 200 bytes of memory, all requested: p5 (100 bytes) fits nowhere.
TEST(HighNodeUtilizationTable, OtherNodeLacksMemory) {
  SCOPED_TRACE("upstream: Other node does not have enough Memory");
  std::vector<json> objs = {unode("n1", "9", false, 0, {}, "4000m", "200"), unode("n2", "10"),
                            upod("p1", "n1", Kind::RS, "400m", "50"), upod("p2", "n1", Kind::RS, "400m", "50"),
                            upod("p3", "n1", Kind::RS, "400m", "50"), upod("p4", "n1", Kind::DS, "400m", "50"),
                            upod("p5", "n2", Kind::RS, "400m", "100")};
  EXPECT_EQ(run_fit(thresholds(30, 30), objs), Keys{});
}

// OnlyThresholdingResources: the pods of the underutilized n2 request no device, so stay.
TEST(HighNodeUtilizationTable, ThresholdingResourcesOnlyWithoutSuchPods) {
  SCOPED_TRACE("upstream: with extended resource threshold and no extended resource pods");
  std::vector<json> objs = {unode("n1", "10", false, 10), unode("n2", "10", false, 10), unode("n3", "10", false, 10),
                            with_ext(upod("p1", "n1", Kind::RS, "100m"), 3), with_ext(upod("p2", "n1", Kind::RS, "100m"), 3)};
  for (int i = 3; i <= 6; ++i) objs.push_back(upod("p" + std::to_string(i), "n2", Kind::RS, "500m"));
  EXPECT_EQ(run_fit(only({{kExt, 40}}, true), objs), Keys{});
}

// TestHighNodeUtilizationWithTaints: cpu 40 %, no nodeFit, at most the expected number
// per node; 1-core nodes, pods of 200m.
TEST(HighNodeUtilizationTable, Taints) {
  auto one_core = [](const std::string& name, bool tainted) {
    json n = unode(name, "10", false, 0, {}, "1000m");
    if (tainted) n["spec"]["taints"] = json::array({{{"key", "key"}, {"value", "value"}, {"effect", "NoSchedule"}}});
    return n;
  };
  json tolerating = upod("tolerate_pod", "n1", Kind::RS, "200m");
  tolerating["spec"]["tolerations"] = json::array({{{"key", "key"}, {"value", "value"}}});
  std::vector<json> none = {one_core("n1", false), one_core("n2", false), one_core("n3", false),
                            upod("pod_1_n1", "n1", Kind::RS, "200m"), upod("pod_2_n1", "n1", Kind::RS, "200m"),
                            upod("pod_3_n1", "n1", Kind::RS, "200m"), upod("pod_4_n2", "n2", Kind::RS, "200m")};
  EXPECT_EQ(run_fit(only({{"cpu", 40}}), none, false, 1), Keys{"pod_4_n2"}) << "No taints";
  std::vector<json> untolerated = {one_core("n1", false), one_core("n3", true), upod("pod_1_n1", "n1", Kind::RS, "200m"),
                                   upod("pod_2_n3", "n3", Kind::RS, "200m")};
  EXPECT_EQ(run_fit(only({{"cpu", 40}}), untolerated, false, 0), Keys{}) << "No pod tolerates node taint";
  std::vector<json> tolerated = {one_core("n1", false), one_core("n3", true), upod("pod_1_n1", "n1", Kind::RS, "100m"),
                                 tolerating, upod("pod_9_n3", "n3", Kind::RS, "500m")};
  EXPECT_EQ(run_fit(only({{"cpu", 40}}), tolerated, false, 1), Keys{"tolerate_pod"}) << "Pod which tolerates node taint";
}

TEST(HighNodeUtilization, Validation) {
  auto parse = [](const char* text) { return hnu::parse_args(ctx(), json::parse(text), "args"); };
  EXPECT_FALSE(hnu::parse_args(ctx(), nullptr, "args").ok());
  EXPECT_FALSE(parse(R"({"thresholds": {"cpu": 120}})").ok());
  EXPECT_FALSE(parse(R"({"thresholds": {"cpu": 20}, "evictionModes": ["Everything"]})").ok());
  auto inc = parse(R"({"thresholds": {"cpu": 20}, "evictableNamespaces": {"include": ["a"]}})");
  ASSERT_FALSE(inc.ok());
  EXPECT_NE(inc.message().find("takes only exclude"), std::string::npos) << inc.message();
  auto ok = parse(R"({"thresholds": {"cpu": 20, "memory": 20, "pods": 20}, "evictionModes": ["OnlyThresholdingResources"]})");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_TRUE(ok->only_thresholding_resources);
}

}  // namespace
}  // namespace weft::descheduler::test
