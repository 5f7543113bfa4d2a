// RemovePodsViolatingTopologySpreadConstraint: the Kubernetes descheduler's
// topologyspreadconstraint_test.go as facts. Nodes n1, n2, ... carry zone labels; pods
// labelled foo=bar, the first of each list carrying the constraint (maxSkew over zone,
// selecting foo=bar). Counts of evicted pods, as upstream asserts them.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/RemovePodsViolatingTopologySpreadConstraint/topology_spread.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace ts = plugins::topology_spread;

json zone_node(const std::string& name, const std::string& zone, const std::string& cpu = "2") {
  return node(name, {{"zone", zone}}, cpu, "3Gi", "10");
}

json constraint(int max_skew, const std::string& when = "DoNotSchedule") {
  return {{"maxSkew", max_skew},
          {"topologyKey", "zone"},
          {"whenUnsatisfiable", when},
          {"labelSelector", {{"matchLabels", {{"foo", "bar"}}}}}};
}

struct Pods {
  int count = 1;
  std::string node;
  json constraints = json::array();
  std::map<std::string, std::string> node_selector;
  bool terminating = false;
  json node_affinity = nullptr;   // spec.affinity.nodeAffinity
  std::string cpu = "100m";
  std::map<std::string, std::string> labels = {{"foo", "bar"}};
};

std::vector<json> pods(const std::vector<Pods>& lists) {
  std::vector<json> out;
  int k = 0;
  for (const auto& l : lists)
    for (int i = 0; i < l.count; ++i) {
      json p = pod("pod-" + std::to_string(k++), l.node, {.ns = "ns1", .cpu = l.cpu, .memory = "0", .node_selector = l.node_selector});
      for (const auto& [key, v] : l.labels) p["metadata"]["labels"][key] = v;
      if (!l.constraints.empty()) p["spec"]["topologySpreadConstraints"] = l.constraints;
      if (l.terminating) p["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z";
      if (!l.node_affinity.is_null()) p["spec"]["affinity"]["nodeAffinity"] = l.node_affinity;
      out.push_back(p);
    }
  return out;
}

size_t evicted(std::vector<json> nodes, const std::vector<Pods>& lists, const std::string& args = "{}") {
  for (json& p : pods(lists)) nodes.push_back(p);
  Cluster c = build(nodes);
  TestHandle h(c, t0());
  auto parsed = ts::parse_args(ctx(), json::parse(args), "args");
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  ts::Plugin plugin(*parsed);
  return run_plugin(plugin, h).size();
}

const json kOne = json::array({constraint(1)});

TEST(RemovePodsViolatingTopologySpreadConstraint, TwoDomains) {
  const std::vector<json> two = {zone_node("n1", "zoneA"), zone_node("n2", "zoneB")};
  // [2,1], maxSkew 1: balanced.
  EXPECT_EQ(evicted(two, {{.node = "n1", .constraints = kOne}, {.node = "n1"}, {.node = "n2"}}), 0u);
  // [3,1]: one moves for [2,2]; also with both kinds listed, and a soft constraint when listed.
  EXPECT_EQ(evicted(two, {{.node = "n1", .constraints = kOne}, {.count = 2, .node = "n1"}, {.node = "n2"}}), 1u);
  EXPECT_EQ(evicted(two, {{.node = "n1", .constraints = json::array({constraint(1, "ScheduleAnyway")})},
                          {.count = 2, .node = "n1"}, {.node = "n2"}},
                    R"({"constraints": ["DoNotSchedule", "ScheduleAnyway"]})"),
            1u);
  // A soft constraint is not acted on by default.
  EXPECT_EQ(evicted(two, {{.node = "n1", .constraints = json::array({constraint(1, "ScheduleAnyway")})},
                          {.count = 2, .node = "n1"}, {.node = "n2"}}),
            0u);
  // Namespaces excluded: nothing moves.
  EXPECT_EQ(evicted(two, {{.node = "n1", .constraints = kOne}, {.count = 2, .node = "n1"}, {.node = "n2"}},
                    R"({"namespaces": {"exclude": ["ns1"]}})"),
            0u);
  // [5,2]: one for [4,3]; [4,0]: two for [2,2].
  EXPECT_EQ(evicted(two, {{.node = "n1", .constraints = kOne}, {.count = 4, .node = "n1"}, {.count = 2, .node = "n2"}}), 1u);
  EXPECT_EQ(evicted(two, {{.node = "n1", .constraints = kOne}, {.count = 3, .node = "n1"}}), 2u);
  // [4,0] where two pods are pinned to zoneA by nodeSelector and one by a node affinity no
  // other node matches: only the fourth can move.
  const json foo_bar = {{"requiredDuringSchedulingIgnoredDuringExecution",
                         {{"nodeSelectorTerms",
                           json::array({{{"matchExpressions",
                                          json::array({{{"key", "foo"}, {"operator", "In"}, {"values", {"bar"}}}})}}})}}}};
  EXPECT_EQ(evicted(two, {{.count = 2, .node = "n1", .constraints = kOne, .node_selector = {{"zone", "zoneA"}}},
                          {.node = "n1", .constraints = kOne, .node_affinity = foo_bar},
                          {.node = "n1", .constraints = kOne}}),
            1u);
  // [4,2] with two of the four being deleted: [2,2], nothing moves.
  EXPECT_EQ(evicted(two, {{.count = 2, .node = "n1", .constraints = kOne}, {.count = 2, .node = "n1", .terminating = true},
                          {.count = 2, .node = "n2"}}),
            0u);
}

TEST(RemovePodsViolatingTopologySpreadConstraint, ManyDomains) {
  auto zones = [](int n) {
    std::vector<json> out;
    for (int i = 1; i <= n; ++i) out.push_back(zone_node("n" + std::to_string(i), "zone" + std::to_string(i), "200"));
    return out;
  };
  // [0,1,100], maxSkew 1: 66 move for [34,33,34] (nodes large enough to take them).
  EXPECT_EQ(evicted(zones(3), {{.node = "n2", .constraints = kOne}, {.node = "n3", .constraints = kOne},
                               {.count = 99, .node = "n3"}}),
            66u);
  // [0,1,3,5]: three move for [2,2,3,2].
  EXPECT_EQ(evicted(zones(4), {{.node = "n2", .constraints = kOne}, {.count = 3, .node = "n3"}, {.count = 5, .node = "n4"}}),
            3u);
  // [8,7,0]: five move for [5,5,5]; [5,5,5]: none.
  EXPECT_EQ(evicted(zones(3), {{.node = "n1", .constraints = kOne}, {.count = 7, .node = "n1"}, {.count = 7, .node = "n2"}}),
            5u);
  EXPECT_EQ(evicted(zones(3), {{.node = "n1", .constraints = kOne}, {.count = 4, .node = "n1"}, {.count = 5, .node = "n2"},
                               {.count = 5, .node = "n3"}}),
            0u);
}

TEST(RemovePodsViolatingTopologySpreadConstraint, MaxSkewTwoAndNodeFit) {
  const json two_skew = json::array({constraint(2)});
  // [2,6], maxSkew 2: one moves for [3,5].
  EXPECT_EQ(evicted({zone_node("n1", "zoneA"), zone_node("n2", "zoneB")},
                    {{.node = "n1", .constraints = two_skew}, {.node = "n1"}, {.count = 6, .node = "n2"}}),
            1u);
  // The small domain's node has no cpu left for them: with topologyBalanceNodeFit none moves,
  // without it one does (to force a scale-up, as upstream).
  const std::vector<json> full = {zone_node("n1", "zoneA", "200m"), zone_node("n2", "zoneB")};
  const std::vector<Pods> lists = {{.node = "n1", .constraints = two_skew}, {.node = "n1"}, {.count = 6, .node = "n2"}};
  EXPECT_EQ(evicted(full, lists), 0u);
  EXPECT_EQ(evicted(full, lists, R"({"topologyBalanceNodeFit": false})"), 1u);
  // A tainted small domain the pods do not tolerate: none moves.
  json tainted = zone_node("n1", "zoneA");
  tainted["spec"]["taints"] = json::array({{{"key", "hardware"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  EXPECT_EQ(evicted({tainted, zone_node("n2", "zoneB")}, {{.count = 2, .node = "n2", .constraints = kOne}}), 0u);
  // PreferNoSchedule does not keep them out.
  tainted["spec"]["taints"][0]["effect"] = "PreferNoSchedule";
  EXPECT_EQ(evicted({tainted, zone_node("n2", "zoneB")}, {{.count = 2, .node = "n2", .constraints = kOne}}), 1u);
}

TEST(RemovePodsViolatingTopologySpreadConstraint, MatchLabelKeys) {
  json by_rs = json::array({constraint(1)});
  by_rs[0]["matchLabelKeys"] = json::array({"pod-template-hash"});
  const std::vector<json> two = {zone_node("n1", "zoneA"), zone_node("n2", "zoneB")};
  // Same ReplicaSet (hash): [2,0], one moves; two ReplicaSets of one pod each: balanced each.
  EXPECT_EQ(evicted(two, {{.count = 2, .node = "n1", .constraints = by_rs, .labels = {{"foo", "bar"}, {"pod-template-hash", "a"}}}}), 1u);
  EXPECT_EQ(evicted(two, {{.node = "n1", .constraints = by_rs, .labels = {{"foo", "bar"}, {"pod-template-hash", "a"}}},
                          {.node = "n1", .constraints = by_rs, .labels = {{"foo", "bar"}, {"pod-template-hash", "b"}}}}),
            0u);
}

TEST(RemovePodsViolatingTopologySpreadConstraint, Validation) {
  auto defaults = ts::parse_args(ctx(), nullptr, "args");
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(defaults->hard);
  EXPECT_FALSE(defaults->soft);
  EXPECT_TRUE(defaults->topology_balance_node_fit);
  auto wrong = ts::parse_args(ctx(), json::parse(R"({"constraints": ["Sometimes"]})"), "args");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("args.constraints[0]"), std::string::npos) << wrong.message();
  EXPECT_FALSE(ts::parse_args(ctx(), json::parse(R"({"namespaces": {"include": ["a"], "exclude": ["b"]}})"), "args").ok());
  EXPECT_FALSE(ts::parse_args(ctx(), json::parse(R"({"topologyBalanceNodeFit": "yes"})"), "args").ok());
  EXPECT_FALSE(ts::parse_args(ctx(), json::parse(R"({"maxSkew": 1})"), "args").ok());
}

}  // namespace
}  // namespace weft::descheduler::test
