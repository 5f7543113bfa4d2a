// RemovePodsViolatingNodeTaints: the Kubernetes descheduler's node_taint_test.go as facts.
// Taint "testTaint1=test1:NoSchedule" unless a case says otherwise.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/RemovePodsViolatingNodeTaints/node_taints.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace nt = plugins::node_taints;

json taint(const std::string& key, const std::string& value, const std::string& effect = "NoSchedule") {
  return {{"key", key}, {"value", value}, {"effect", effect}};
}

json tainted(const std::string& name, json taints) {
  json n = node(name);
  n["spec"]["taints"] = std::move(taints);
  return n;
}

json tolerating(const std::string& name, const std::string& node_name, json tolerations = json::array()) {
  json p = pod(name, node_name);
  if (!tolerations.empty()) p["spec"]["tolerations"] = std::move(tolerations);
  return p;
}

json toleration(const std::string& key, const std::string& value) {
  return {{"key", key}, {"value", value}, {"effect", "NoSchedule"}};
}

std::vector<std::string> run(const nt::Args& a, const std::vector<json>& objs,
                             std::function<void(RecordingEvictor&)> setup = {}) {
  Cluster c = build(objs);
  TestHandle h(c, t0());
  if (setup) setup(h.recorder());
  nt::Plugin plugin(a);
  return run_plugin(plugin, h);
}

using Keys = std::vector<std::string>;
const json kTaint1 = json::array({taint("testTaint1", "test1")});
const json kTolerate1 = json::array({toleration("testTaint1", "test1")});

TEST(RemovePodsViolatingNodeTaints, PodsNotToleratingAreEvicted) {
  nt::Args a;
  EXPECT_EQ(run(a, {tainted("n1", kTaint1), tolerating("p1", "n1", kTolerate1), tolerating("p2", "n1"),
                    tolerating("p3", "n1", kTolerate1)}),
            Keys{"default/p2"});
  EXPECT_EQ(run(a, {tainted("n1", kTaint1), tolerating("p1", "n1", kTolerate1), tolerating("p3", "n1", kTolerate1),
                    tolerating("p4", "n1", json::array({toleration("testTaintX1", "testX1")}))}),
            Keys{"default/p4"});
}

TEST(RemovePodsViolatingNodeTaints, Limits) {
  std::vector<json> objs = {tainted("n1", kTaint1), tolerating("p1", "n1", kTolerate1), tolerating("p5", "n1"),
                            tolerating("p6", "n1")};
  EXPECT_EQ(run({}, objs, [](RecordingEvictor& e) { e.max_per_node = 2; e.max_total = 1; }).size(), 1u);
  EXPECT_EQ(run({}, objs, [](RecordingEvictor& e) { e.max_per_node = 1; }).size(), 1u);
}

TEST(RemovePodsViolatingNodeTaints, PreferNoSchedule) {
  std::vector<json> objs = {tainted("n1", json::array({taint("testTaint1", "test1", "PreferNoSchedule")})),
                            tolerating("p13", "n1")};
  EXPECT_EQ(run({}, objs), Keys{});
  nt::Args a;
  a.include_prefer_no_schedule = true;
  EXPECT_EQ(run(a, objs), Keys{"default/p13"});
}

TEST(RemovePodsViolatingNodeTaints, NoExecuteIsTheKubeletsToEnforce) {
  EXPECT_EQ(run({}, {tainted("n1", json::array({taint("gone", "", "NoExecute")})), tolerating("p1", "n1")}), Keys{});
}

TEST(RemovePodsViolatingNodeTaints, ExcludedTaints) {
  std::vector<json> objs = {tainted("n1", kTaint1), tolerating("p2", "n1")};
  nt::Args by_key;
  by_key.excluded_taints = {"excludedTaint1", "testTaint1"};
  EXPECT_EQ(run(by_key, objs), Keys{});
  nt::Args by_value;
  by_value.excluded_taints = {"testTaint1=test1"};
  EXPECT_EQ(run(by_value, objs), Keys{});
  nt::Args other_value;
  other_value.excluded_taints = {"testTaint1=test2"};
  EXPECT_EQ(run(other_value, objs), Keys{"default/p2"});
}

TEST(RemovePodsViolatingNodeTaints, IncludedTaints) {
  json both = json::array({taint("testTaint1", "test1"), taint("testingTaint1", "testing1")});
  nt::Args inc1;
  inc1.included_taints = std::vector<std::string>{"testTaint1=test1"};
  EXPECT_EQ(run(inc1, {tainted("n7", both), tolerating("p1", "n7", kTolerate1)}), Keys{});
  nt::Args inc2;
  inc2.included_taints = std::vector<std::string>{"testTaint2=test2"};
  EXPECT_EQ(run(inc2, {tainted("n1", kTaint1), tolerating("p1", "n1", kTolerate1), tolerating("p2", "n1"),
                       tolerating("p4", "n1", json::array({toleration("testTaintX1", "testX1")}))}),
            Keys{});
  EXPECT_EQ(run(inc1, {tainted("n1", kTaint1), tolerating("p1", "n1", kTolerate1), tolerating("p2", "n1"),
                       tolerating("p3", "n1", kTolerate1)}),
            Keys{"default/p2"});
  // No includedTaints: every taint counts; p15 tolerates both, p14 one.
  EXPECT_EQ(run({}, {tainted("n7", both), tolerating("p14", "n7", kTolerate1),
                     tolerating("p15", "n7", json::array({toleration("testTaint1", "test1"),
                                                          toleration("testingTaint1", "testing1")}))}),
            Keys{"default/p14"});
}

TEST(RemovePodsViolatingNodeTaints, EvictorDecidesOnCriticalAndLocalStoragePods) {
  // The evictor keeps what its rules keep (here: p7); the plugin asks for both.
  Keys out = run({}, {tainted("n1", kTaint1), tolerating("p2", "n1"), tolerating("p7", "n1")},
                 [](RecordingEvictor& e) { e.blocked = {"default/p7"}; });
  EXPECT_EQ(out, Keys{"default/p2"});
}

// The rows run with DefaultEvictorArgs{NodeFit: true}: a pod not tolerating its node's taint
// stays when no other node takes it.
size_t evicted_with_node_fit(const std::vector<json>& objs) {
  Cluster c = build(objs);
  EvictorHandle h(c, {}, with_node_fit(true));
  nt::Plugin plugin({});
  return run_plugin(plugin, h).size();
}

TEST(RemovePodsViolatingNodeTaints, NodeFitKeepsPodsNoOtherNodeTakes) {
  const std::vector<json> pods = {tolerating("p1", "n1", kTolerate1), tolerating("p2", "n1"),
                                  tolerating("p3", "n1", kTolerate1)};
  auto with = [&](json other) {
    std::vector<json> objs = {tainted("n1", kTaint1), std::move(other)};
    objs.insert(objs.end(), pods.begin(), pods.end());
    return objs;
  };
  // The other node has a taint p2 does not tolerate either.
  EXPECT_EQ(evicted_with_node_fit(with(tainted("n2", json::array({taint("testingTaint1", "testing1")})))), 0u);
  // The other node is unschedulable.
  json cordoned = node("n4");
  cordoned["spec"]["unschedulable"] = true;
  EXPECT_EQ(evicted_with_node_fit(with(cordoned)), 0u);
  // ... and a plain other node takes it.
  EXPECT_EQ(evicted_with_node_fit(with(node("n5"))), 1u);
  // p11's selector (datacenter=west) matches no other node.
  json p11 = pod("p11", "n1", {.node_selector = {{"datacenter", "west"}}});
  EXPECT_EQ(evicted_with_node_fit({tainted("n1", kTaint1), node("n3", {{"datacenter", "east"}}), p11}), 0u);
  // The only other node (1m CPU, 1 byte, 1 pod) has no room.
  json tiny = node("n6", {}, "1m", "1", "1");
  tiny["spec"]["taints"] = json::array({taint("testTaint1", "test1", "PreferNoSchedule")});
  EXPECT_EQ(evicted_with_node_fit({tainted("n1", kTaint1), tiny, tolerating("p2", "n1")}), 0u);
}

// TestDeletePodsViolatingNodeTaints row by row with upstream's own objects: nodes of
// 2000m, 3000 bytes and 10 pods, pods of 100m owned by a Pod; through the DefaultEvictor
// with the row's args, limits and nodeFit. A pod may name a node the row does not have,
// as upstream's do.
namespace upstream {

json no_schedule(int i, const std::string& key = "testTaint", const std::string& effect = "NoSchedule") {
  return {{"key", key + std::to_string(i)}, {"value", (key == "testTaint" ? "test" : "testing") + std::to_string(i)},
          {"effect", effect}};
}
json test_node(const std::string& name, json taints = json::array(), std::map<std::string, std::string> labels = {}) {
  json n = node(name, std::move(labels), "2000m", "3000", "10");
  if (!taints.empty()) n["spec"]["taints"] = std::move(taints);
  return n;
}
json owned(const std::string& name, const std::string& node_name) {
  return pod(name, node_name, {.cpu = "100m", .memory = "0", .owner_kind = "Pod"});
}
json tolerating(json p, const std::string& key, const std::string& value, int i, const std::string& effect = "NoSchedule") {
  p["spec"]["tolerations"].push_back({{"key", key + std::to_string(i)}, {"value", value + std::to_string(i)}, {"effect", effect}});
  return p;
}
json tol1(const std::string& name, const std::string& node_name) { return tolerating(owned(name, node_name), "testTaint", "test", 1); }
json critical(const std::string& name, const std::string& node_name) {
  json p = owned(name, node_name);
  p["metadata"]["namespace"] = "kube-system";
  p["spec"]["priority"] = 2000000000;
  return p;
}
json local_storage(const std::string& name, const std::string& node_name) {
  json p = owned(name, node_name);
  p["spec"]["volumes"] = json::array({{{"name", "sample"}, {"emptyDir", json::object()}}});
  return p;
}
json mirror(const std::string& name, const std::string& node_name) {
  json p = owned(name, node_name);
  p["metadata"]["annotations"]["kubernetes.io/config.mirror"] = "mirror";
  return p;
}
json daemon(const std::string& name, const std::string& node_name) {
  return pod(name, node_name, {.cpu = "100m", .memory = "0", .owner_kind = "DaemonSet"});
}

struct Row {
  std::string description;
  std::vector<json> nodes, pods;
  size_t expected;
  nt::Args args = {};
  EvictorArgs evictor = {};
  framework::EvictorOptions options = {};
};

size_t run(const Row& row) {
  std::vector<json> objs = row.nodes;
  objs.insert(objs.end(), row.pods.begin(), row.pods.end());
  Cluster c = build(objs);
  EvictorHandle h(c, row.evictor, row.options);
  nt::Plugin plugin(row.args);
  return run_plugin(plugin, h).size();
}

nt::Args included(std::vector<std::string> taints) {
  nt::Args a;
  a.included_taints = std::move(taints);
  return a;
}
nt::Args excluded(std::vector<std::string> taints) {
  nt::Args a;
  a.excluded_taints = std::move(taints);
  return a;
}

}  // namespace upstream

TEST(RemovePodsViolatingNodeTaints, UpstreamRowsThroughTheEvictor) {
  using namespace upstream;
  const json n1 = test_node("n1", json::array({no_schedule(1)}));
  const json n2 = test_node("n2", json::array({no_schedule(1, "testingTaint")}));
  const json n5 = test_node("n5", json::array({no_schedule(1, "testTaint", "PreferNoSchedule")}));
  const json n7 = test_node("n7", json::array({no_schedule(1), no_schedule(1, "testingTaint")}));
  json n4 = test_node("n4");
  n4["spec"]["unschedulable"] = true;
  json n6 = node("n6", {}, "1m", "1", "1");
  n6["spec"]["taints"] = json::array({no_schedule(1, "testTaint", "PreferNoSchedule")});
  const std::vector<json> p1_p5_p6 = {tol1("p1", "n1"), owned("p5", "n1"), owned("p6", "n1")};
  const std::vector<json> protected_on_n2 = {critical("p7", "n2"), daemon("p8", "n2"), local_storage("p9", "n2"), mirror("p10", "n2")};
  EvictorArgs local, system;
  local.evict_local_storage_pods = true;
  system.evict_system_critical_pods = true;
  framework::EvictorOptions fit = with_node_fit(true);
  nt::Args prefer;
  prefer.include_prefer_no_schedule = true;
  json p13 = tolerating(owned("p13", "n5"), "testTaint", "test", 0, "PreferNoSchedule");
  json p15 = tolerating(tol1("p15", "n7"), "testingTaint", "testing", 1);
  const std::vector<Row> rows = {
      {"Pods not tolerating node taint should be evicted", {n1}, {tol1("p1", "n1"), owned("p2", "n1"), tol1("p3", "n1")}, 1},
      {"Pods with tolerations but not tolerating node taint should be evicted", {n1},
       {tol1("p1", "n1"), tol1("p3", "n1"), tolerating(owned("p4", "n1"), "testTaintX", "testX", 1)}, 1},
      {"Only <maxNoOfPodsToEvictTotal> number of Pods not tolerating node taint should be evicted", {n1}, p1_p5_p6, 1, {}, {},
       with_limits(false, 2, std::nullopt, 1)},
      {"Only <maxPodsToEvictPerNode> number of Pods not tolerating node taint should be evicted", {n1}, p1_p5_p6, 1, {}, {},
       with_limits(false, 1, std::nullopt, std::nullopt)},
      {"Only <maxNoOfPodsToEvictPerNamespace> number of Pods not tolerating node taint should be evicted", {n1}, p1_p5_p6, 1,
       {}, {}, with_limits(false, std::nullopt, 1, std::nullopt)},
      {"Critical pods not tolerating node taint should not be evicted", {n2}, protected_on_n2, 0},
      {"Critical pods except storage pods not tolerating node taint should not be evicted", {n2}, protected_on_n2, 1, {}, local},
      {"Critical and non critical pods, only non critical pods not tolerating node taint should be evicted", {n2},
       {critical("p7", "n2"), daemon("p8", "n2"), mirror("p10", "n2"), owned("p11", "n2")}, 1},
      {"Critical and non critical pods, pods not tolerating node taint should be evicted even if they are critical", {n1, n2},
       {owned("p2", "n1"), critical("p7", "n2"), local_storage("p9", "n2"), mirror("p10", "n2")}, 2, {}, system},
      {"Pod p2 doesn't tolerate taint on it's node, but also doesn't tolerate taints on other nodes", {n1, n2},
       {tol1("p1", "n1"), owned("p2", "n1"), tol1("p3", "n1")}, 0, {}, {}, fit},
      {"Pod p12 doesn't tolerate taint on it's node, but other nodes don't match it's selector",
       {n1, test_node("n3", json::array(), {{"datacenter", "east"}})},
       {tol1("p1", "n1"), tol1("p3", "n1"),
        [] {
          json p = owned("p11", "n2");
          p["spec"]["nodeSelector"] = {{"datacenter", "west"}};
          return p;
        }()},
       0, {}, {}, fit},
      {"Pod p2 doesn't tolerate taint on it's node, but other nodes are unschedulable", {n1, n4},
       {tol1("p1", "n1"), owned("p2", "n1"), tol1("p3", "n1")}, 0, {}, {}, fit},
      {"Pods not tolerating PreferNoSchedule node taint should not be evicted when not enabled", {n5}, {p13}, 0},
      {"Pods not tolerating PreferNoSchedule node taint should be evicted when enabled", {n5}, {p13}, 1, prefer},
      {"Pods not tolerating excluded node taints (by key) should not be evicted", {n1}, {owned("p2", "n1")}, 0,
       excluded({"excludedTaint1", "testTaint1"})},
      {"Pods not tolerating excluded node taints (by key and value) should not be evicted", {n1}, {owned("p2", "n1")}, 0,
       excluded({"testTaint1=test1"})},
      {"The excluded taint matches the key of node1's taint, but does not match the value", {n1}, {owned("p2", "n1")}, 1,
       excluded({"testTaint1=test2"})},
      {"Critical and non critical pods, pods not tolerating node taint can't be evicted because the only available node does "
       "not have enough resources.",
       {n1, n6}, {owned("p2", "n1"), critical("p7", "n2"), local_storage("p9", "n2"), mirror("p10", "n2")}, 0, {}, system, fit},
      {"Pods tolerating included taints should not get evicted even with other taints present", {n7}, {tol1("p1", "n1")}, 0,
       included({"testTaint1=test1"})},
      {"Pods not tolerating not included taints should not get evicted", {n1},
       {tol1("p1", "n1"), owned("p2", "n1"), tolerating(owned("p4", "n1"), "testTaintX", "testX", 1)}, 0,
       included({"testTaint2=test2"})},
      {"Pods tolerating includedTaint should not get evicted. Pods not tolerating includedTaints should get evicted", {n1},
       {tol1("p1", "n1"), owned("p2", "n1"), tol1("p3", "n1")}, 1, included({"testTaint1=test1"})},
      {"Pods not tolerating all taints are evicted when includedTaints is empty", {n7}, {tol1("p14", "n7"), p15}, 1},
  };
  for (const Row& row : rows) EXPECT_EQ(upstream::run(row), row.expected) << row.description;
}

// TestToleratesTaint: the toleration rule the plugin asks (kube::Toleration::tolerates).
TEST(RemovePodsViolatingNodeTaints, UpstreamToleratesTaint) {
  struct Row {
    const char* description;
    kube::Toleration toleration;
    kube::Taint taint;
    bool tolerated;
  };
  const std::vector<Row> rows = {
      {"toleration and taint have the same key and effect, and operator is Exists, and taint has no value, expect tolerated",
       {"foo", "Exists", "", "NoSchedule"}, {"foo", "", "NoSchedule"}, true},
      {"toleration and taint have the same key and effect, and operator is Exists, and taint has some value, expect tolerated",
       {"foo", "Exists", "", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
      {"toleration and taint have the same effect, toleration has empty key and operator is Exists, means match all taints, "
       "expect tolerated",
       {"", "Exists", "", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
      {"toleration and taint have the same key, effect and value, and operator is Equal, expect tolerated",
       {"foo", "Equal", "bar", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
      {"toleration and taint have the same key and effect, but different values, and operator is Equal, expect not tolerated",
       {"foo", "Equal", "value1", "NoSchedule"}, {"foo", "value2", "NoSchedule"}, false},
      {"toleration and taint have the same key and value, but different effects, and operator is Equal, expect not tolerated",
       {"foo", "Equal", "bar", "NoSchedule"}, {"foo", "bar", "NoExecute"}, false},
  };
  for (const Row& row : rows) EXPECT_EQ(row.toleration.tolerates(row.taint), row.tolerated) << row.description;
}

TEST(RemovePodsViolatingNodeTaints, Validation) {
  auto both = nt::parse_args(ctx(), json::parse(R"({"includedTaints": ["a"], "excludedTaints": ["b"]})"), "args");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.message().find("includedTaints or excludedTaints"), std::string::npos) << both.message();
  auto none = nt::parse_args(ctx(), nullptr, "args");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->included_taints);
  EXPECT_FALSE(none->include_prefer_no_schedule);
}

// nodeFit is asked when the pods are listed, every node before any eviction: each pod
// tolerates the other node's taint only; "b" would fit on "small" only once "a" has left.
TEST(RemovePodsViolatingNodeTaints, NodeFitAskedWhenListed) {
  json small = node("small", {}, "1000m", "3000", "10"), large = node("large", {}, "2000m", "3000", "10");
  small["spec"]["taints"] = json::array({taint("t", "small")});
  large["spec"]["taints"] = json::array({taint("t", "large")});
  Cluster c = listing_cluster(
      [](json p) {
        const bool on_small = p["spec"]["nodeName"] == "small";
        p["spec"]["tolerations"] = json::array({toleration("t", on_small ? "large" : "small")});
        return p;
      },
      {small, large});
  EvictorHandle h(c, {}, with_node_fit(true));
  nt::Plugin plugin(nt::Args{});
  EXPECT_EQ(run_plugin(plugin, h), Keys{"default/a"});
}

}  // namespace
}  // namespace weft::descheduler::test
