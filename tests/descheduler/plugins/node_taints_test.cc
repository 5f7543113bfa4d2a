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

TEST(RemovePodsViolatingNodeTaints, Validation) {
  auto both = nt::parse_args(ctx(), json::parse(R"({"includedTaints": ["a"], "excludedTaints": ["b"]})"), "args");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.message().find("includedTaints or excludedTaints"), std::string::npos) << both.message();
  auto none = nt::parse_args(ctx(), nullptr, "args");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->included_taints);
  EXPECT_FALSE(none->include_prefer_no_schedule);
}

}  // namespace
}  // namespace weft::descheduler::test
