// RemovePodsViolatingTopologySpreadConstraint: every row of the Kubernetes descheduler's
// topologyspreadconstraint_test.go (TestTopologySpreadConstraint, TestSortDomains) and
// validation_test.go as facts. Nodes as upstream builds them (milli-CPU, 3000 bytes, 10
// pods unless a row says otherwise); pods pod-0, pod-1, ... in namespace ns1, 100m CPU,
// owned by a ReplicaSet, labelled foo=bar unless a row says otherwise.
#include <gtest/gtest.h>

#include <optional>

#include "descheduler/core/plugins/RemovePodsViolatingTopologySpreadConstraint/topology_spread.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace ts = plugins::topology_spread;
using Labels = std::map<std::string, std::string>;

json test_node(const std::string& name, int milli_cpu, const Labels& labels, json taints = nullptr,
               const std::string& memory = "3000", const std::string& pods = "10") {
  json n = node(name, labels, std::to_string(milli_cpu) + "m", memory, pods);
  if (!taints.is_null()) n["spec"]["taints"] = std::move(taints);
  return n;
}

json zone_node(const std::string& name, const std::string& zone, int milli_cpu = 2000) {
  return test_node(name, milli_cpu, {{"zone", zone}});
}

json taint(const std::string& key, const std::string& value, const std::string& effect = "NoSchedule") {
  json t = {{"key", key}, {"effect", effect}};
  if (!value.empty()) t["value"] = value;
  return t;
}

// Upstream's getDefaultTopologyConstraints: maxSkew over "zone" selecting foo=bar.
json constraint(int max_skew, const std::string& when = "DoNotSchedule", const std::string& key = "zone") {
  return {{"maxSkew", max_skew},
          {"topologyKey", key},
          {"whenUnsatisfiable", when},
          {"labelSelector", {{"matchLabels", {{"foo", "bar"}}}}}};
}

json one(json c) { return json::array({std::move(c)}); }

json required_node_affinity(const std::string& key, const std::string& op, const std::vector<std::string>& values = {}) {
  json expr = {{"key", key}, {"operator", op}};
  if (!values.empty()) expr["values"] = values;
  return {{"requiredDuringSchedulingIgnoredDuringExecution",
           {{"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({expr})}}})}}}};
}

struct Pods {
  int count = 1;
  std::string node;
  json constraints = json::array();
  Labels node_selector;
  json node_affinity = nullptr;   // spec.affinity.nodeAffinity
  json tolerations = nullptr;
  bool terminating = false;
  bool no_owner = false;          // a bare pod: the DefaultEvictor's Filter refuses it
  std::optional<int> priority;    // none: spec.priority absent
  Labels labels = {{"foo", "bar"}};
};

struct Row {
  std::string name;
  std::vector<json> nodes;
  std::vector<Pods> pods;
  std::string args = "{}";
  size_t evicted = 0;
  std::vector<std::string> evicted_pods;   // each must be among the evicted, as upstream checks
  bool node_fit = false;                   // the DefaultEvictor's nodeFit (upstream's tc.nodeFit)
};

std::vector<json> build_pods(const std::vector<Pods>& lists) {
  std::vector<json> out;
  int k = 0;
  for (const auto& l : lists)
    for (int i = 0; i < l.count; ++i) {
      PodSpec spec{.ns = "ns1", .cpu = "100m", .memory = "0", .node_selector = l.node_selector};
      if (l.no_owner) spec.owner_kind = "";
      json p = pod("pod-" + std::to_string(k++), l.node, spec);
      p["metadata"]["labels"] = l.labels;
      if (l.priority) p["spec"]["priority"] = *l.priority;
      else p["spec"].erase("priority");
      if (!l.constraints.empty()) p["spec"]["topologySpreadConstraints"] = l.constraints;
      if (l.terminating) p["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z";
      if (!l.node_affinity.is_null()) p["spec"]["affinity"]["nodeAffinity"] = l.node_affinity;
      if (!l.tolerations.is_null()) p["spec"]["tolerations"] = l.tolerations;
      out.push_back(p);
    }
  return out;
}

// The evicted pod names, as upstream runs a row: through the DefaultEvictor with the
// row's nodeFit (bare and terminating pods are its Filter's to refuse).
std::vector<std::string> run(const Row& row) {
  std::vector<json> objects = row.nodes;
  for (json& p : build_pods(row.pods)) objects.push_back(p);
  Cluster c = build(objects);
  EvictorHandle h(c, {}, with_node_fit(row.node_fit));
  auto parsed = ts::parse_args(ctx(), json::parse(row.args), "args");
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  if (!parsed.ok()) return {};
  ts::Plugin plugin(*parsed);
  std::vector<std::string> names;
  for (const std::string& key : run_plugin(plugin, h)) names.push_back(key.substr(key.find('/') + 1));
  return names;
}

void check(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    const std::vector<std::string> got = run(row);
    EXPECT_EQ(got.size(), row.evicted);
    for (const std::string& p : row.evicted_pods)
      EXPECT_NE(std::find(got.begin(), got.end(), p), got.end()) << p << " not evicted";
  }
}

const json kSkew1 = one(constraint(1));

std::vector<json> two_zones() { return {zone_node("n1", "zoneA"), zone_node("n2", "zoneB")}; }

TEST(RemovePodsViolatingTopologySpreadConstraint, TwoDomains) {
  const json soft = one(constraint(1, "ScheduleAnyway"));
  const std::string both = R"({"constraints": ["DoNotSchedule", "ScheduleAnyway"]})";
  check({
      {"2 domains, sizes [2,1], maxSkew=1, move 0 pods", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.node = "n1"}, {.node = "n2"}}, "{}", 0},
      {"2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2]", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.count = 2, .node = "n1"}, {.node = "n2"}}, "{}", 1},
      {"2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (both constraints)", two_zones(),
       {{.node = "n1", .constraints = soft}, {.count = 2, .node = "n1"}, {.node = "n2"}}, both, 1},
      {"2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (soft constraints)", two_zones(),
       {{.node = "n1", .constraints = soft}, {.count = 2, .node = "n1"}, {.node = "n2"}}, both, 1},
      {"a soft constraint is not acted on by default (constraints defaults to DoNotSchedule)", two_zones(),
       {{.node = "n1", .constraints = soft}, {.count = 2, .node = "n1"}, {.node = "n2"}}, "{}", 0},
      {"2 domains, sizes [3,1], maxSkew=1, no pods eligible, move 0 pods", two_zones(),
       {{.node = "n1", .constraints = kSkew1, .no_owner = true},
        {.count = 2, .node = "n1", .no_owner = true},
        {.node = "n2", .no_owner = true}},
       "{}", 0},
      {"2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2], exclude kube-system namespace", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.count = 2, .node = "n1"}, {.node = "n2"}},
       R"({"namespaces": {"exclude": ["kube-system"]}})", 1, {}, true},
      {"the pods' own namespace excluded: nothing moves", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.count = 2, .node = "n1"}, {.node = "n2"}},
       R"({"namespaces": {"exclude": ["ns1"]}})", 0},
      {"2 domains, sizes [5,2], maxSkew=1, move 1 pod to achieve [4,3]", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.count = 4, .node = "n1"}, {.count = 2, .node = "n2"}}, "{}", 1},
      {"2 domains, sizes [4,0], maxSkew=1, move 2 pods to achieve [2,2]", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.count = 3, .node = "n1"}}, "{}", 2},
      {"2 domains, sizes [4,0], maxSkew=1, only move 1 pod since pods with nodeSelector and nodeAffinity aren't evicted",
       two_zones(),
       {{.count = 2, .node = "n1", .constraints = kSkew1, .node_selector = {{"zone", "zoneA"}}},
        {.node = "n1", .constraints = kSkew1, .node_affinity = required_node_affinity("foo", "In", {"bar"})},
        {.node = "n1", .constraints = kSkew1}},
       "{}", 1, {"pod-3"}, true},
  });
}

// Upstream's six (seven) node domains keyed by "node", three of them linux, the rest windows.
std::vector<json> os_nodes(bool fourth_windows) {
  std::vector<json> out;
  int k = 1;
  for (const char* n : {"linNodeA", "linNodeB", "linNodeC"})
    out.push_back(test_node("n" + std::to_string(k++), 2000, {{"node", n}, {"os", "linux"}}));
  for (const char* n : {"winNodeA", "winNodeB", "winNodeC", "winNodeD"}) {
    if (std::string(n) == "winNodeD" && !fourth_windows) break;
    out.push_back(test_node("n" + std::to_string(k++), 2000, {{"node", n}, {"os", "windows"}}));
  }
  return out;
}

TEST(RemovePodsViolatingTopologySpreadConstraint, NodeAffinityPolicyLeavesOutNodesThePodCannotUse) {
  const json by_node = one(constraint(1, "DoNotSchedule", "node"));
  const Labels windows = {{"os", "windows"}};
  check({
      {"6 domains, sizes [0,0,0,3,3,2], maxSkew=1, No pod is evicted since topology is balanced", os_nodes(false),
       {{.count = 3, .node = "n4", .constraints = by_node, .node_selector = windows},
        {.count = 3, .node = "n5", .constraints = by_node, .node_selector = windows},
        {.count = 2, .node = "n6", .constraints = by_node, .node_selector = windows}},
       "{}", 0},
      {"7 domains, sizes [0,0,0,3,3,2], maxSkew=1, two pods are evicted and moved to new node added", os_nodes(true),
       {{.count = 3, .node = "n4", .constraints = by_node, .node_selector = windows},
        {.count = 3, .node = "n5", .constraints = by_node, .node_selector = windows},
        {.count = 2, .node = "n6", .constraints = by_node, .node_selector = windows}},
       "{}", 2},
      {"6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 1 pod is evicted from node 4", os_nodes(false),
       {{.count = 4, .node = "n4", .constraints = by_node, .node_selector = windows},
        {.count = 3, .node = "n5", .constraints = by_node, .node_selector = windows},
        {.count = 1, .node = "n6", .constraints = by_node, .node_selector = windows}},
       "{}", 1},
      {"6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 0 pod is evicted as pods of node:winNodeA can only be scheduled on "
       "this node and nodeFit is true ",
       os_nodes(false),
       {{.count = 4, .node = "n4", .constraints = by_node, .node_selector = {{"node", "winNodeA"}}},
        {.count = 3, .node = "n5", .constraints = by_node, .node_selector = windows},
        {.count = 1, .node = "n6", .constraints = by_node, .node_selector = windows}},
       "{}", 0, {}, true},
      {"2 domains, sizes [4,0], maxSkew=1, move 2 pods since selector matches multiple nodes",
       {test_node("n1", 2000, {{"zone", "zoneA"}, {"region", "boston"}}),
        test_node("n2", 2000, {{"zone", "zoneB"}, {"region", "boston"}})},
       {{.node = "n1", .constraints = kSkew1, .node_selector = {{"region", "boston"}}},
        {.count = 3, .node = "n1", .node_selector = {{"region", "boston"}}}},
       "{}", 2},
      {"3 domains, sizes [2, 1, 0] with selectors, maxSkew=1, nodeTaintsPolicy=Ignore, should move 1 for [1, 1, 1]",
       {test_node("A1", 1000, {{"zone", "zoneA"}, {"kubernetes.io/arch", "arm64"}}, nullptr, "2000", "9"),
        test_node("B1", 1000, {{"zone", "zoneB"}, {"kubernetes.io/arch", "arm64"}}, nullptr, "2000", "9"),
        test_node("C1", 1000, {{"zone", "zoneC"}, {"kubernetes.io/arch", "arm64"}}, nullptr, "2000", "9")},
       {{.node = "A1", .constraints = [] { json c = one(constraint(1)); c[0]["nodeAffinityPolicy"] = "Ignore"; return c; }(),
         .node_selector = {{"kubernetes.io/arch", "arm64"}}},
        {.node = "A1", .constraints = [] { json c = one(constraint(1)); c[0]["nodeAffinityPolicy"] = "Ignore"; return c; }(),
         .node_selector = {{"zone", "zoneA"}, {"kubernetes.io/arch", "arm64"}}},
        {.node = "B1", .constraints = [] { json c = one(constraint(1)); c[0]["nodeAffinityPolicy"] = "Ignore"; return c; }(),
         .node_selector = {{"kubernetes.io/arch", "arm64"}}}},
       "{}", 1, {"pod-0"}},
  });
}

TEST(RemovePodsViolatingTopologySpreadConstraint, ManyDomains) {
  const std::vector<json> three = {zone_node("n1", "zoneA"), zone_node("n2", "zoneB"), zone_node("n3", "zoneC")};
  check({
      {"3 domains, sizes [0, 1, 100], maxSkew=1, move 66 pods to get [34, 33, 34]", three,
       {{.node = "n2", .constraints = kSkew1}, {.count = 100, .node = "n3"}}, "{}", 66},
      {"4 domains, sizes [0, 1, 3, 5], should move 3 to get [2, 2, 3, 2]",
       {zone_node("n1", "zoneA"), zone_node("n2", "zoneB"), zone_node("n3", "zoneC"), zone_node("n4", "zoneD")},
       {{.node = "n2", .constraints = kSkew1}, {.count = 3, .node = "n3"}, {.count = 5, .node = "n4"}}, "{}", 3},
      // A node's pods of one rank leave last name first ("pod-10" < "pod-8").
      {"3 domains size [8 7 0], maxSkew=1, should move 5 to get [5 5 5]", three,
       {{.count = 8, .node = "n1", .constraints = kSkew1}, {.count = 7, .node = "n2", .constraints = kSkew1}}, "{}", 5,
       {"pod-5", "pod-6", "pod-7", "pod-8", "pod-9"}},
      {"3 domains size [5 5 5], maxSkew=1, should move 0 to retain [5 5 5]", three,
       {{.count = 5, .node = "n1", .constraints = kSkew1},
        {.count = 5, .node = "n2", .constraints = kSkew1},
        {.count = 5, .node = "n3", .constraints = kSkew1}},
       "{}", 0},
  });
}

TEST(RemovePodsViolatingTopologySpreadConstraint, MaxSkewTwoTaintsAndRoom) {
  const json skew2 = one(constraint(2));
  check({
      {"2 domains size [2 6], maxSkew=2, should move 1 to get [3 5]", two_zones(),
       {{.node = "n1", .constraints = skew2}, {.node = "n1"}, {.count = 6, .node = "n2"}}, "{}", 1},
      {"2 domains size [2 6], maxSkew=2, can't move any because of node taints",
       {test_node("n1", 2000, {{"zone", "zoneA"}}, json::array({taint("hardware", "gpu")})), zone_node("n2", "zoneB")},
       {{.node = "n1", .constraints = skew2}, {.node = "n1"}, {.count = 6, .node = "n2"}}, "{}", 0, {}, true},
      {"2 domains size [2 6], maxSkew=2, can't move any because node1 does not have enough CPU",
       {zone_node("n1", "zoneA", 200), zone_node("n2", "zoneB")},
       {{.node = "n1", .constraints = skew2}, {.node = "n1"}, {.count = 6, .node = "n2"}}, "{}", 0, {}, true},
      {"the same without topologyBalanceNodeFit: one moves (to force a scale-up)",
       {zone_node("n1", "zoneA", 200), zone_node("n2", "zoneB")},
       {{.node = "n1", .constraints = skew2}, {.node = "n1"}, {.count = 6, .node = "n2"}},
       R"({"topologyBalanceNodeFit": false})", 1},
  });
}

TEST(RemovePodsViolatingTopologySpreadConstraint, MultipleConstraints) {
  // kubernetes-sigs/descheduler#564: a soft zone constraint and a hard hostname one.
  std::vector<json> nodes;
  for (int i = 1; i <= 6; ++i) {
    const std::string n = "n" + std::to_string(i);
    nodes.push_back(test_node(n, 2000, {{"topology.kubernetes.io/zone", i <= 3 ? "zoneA" : "zoneB"}, {"kubernetes.io/hostname", n}}));
  }
  json both = json::array({constraint(1, "ScheduleAnyway", "topology.kubernetes.io/zone"),
                           constraint(1, "DoNotSchedule", "kubernetes.io/hostname")});
  for (auto& c : both) c["labelSelector"] = {{"matchLabels", {{"app", "whoami"}}}};
  const Labels whoami = {{"app", "whoami"}};
  std::vector<Pods> pods;
  for (const char* n : {"n1", "n2", "n3", "n4"}) pods.push_back({.node = n, .constraints = both, .labels = whoami});
  check({{"Multiple constraints (6 nodes/2 zones, 4 pods)", nodes, pods,
          R"({"constraints": ["DoNotSchedule", "ScheduleAnyway"]})", 1}});
}

TEST(RemovePodsViolatingTopologySpreadConstraint, TaintedTargets) {
  auto tainted = [](const std::string& effect) {
    return std::vector<json>{zone_node("n1", "zoneA"),
                             test_node("n2", 2000, {{"zone", "zoneB"}}, json::array({taint("taint-test", "test", effect)}))};
  };
  const json tolerate = json::array(
      {{{"key", "taint-test"}, {"value", "test"}, {"operator", "Equal"}, {"effect", "NoSchedule"}}});
  const Pods pinned = {.node = "n1", .node_selector = {{"zone", "zoneA"}}};
  check({
      {"2 domains, sizes [2,0], maxSkew=1, move 1 pod since pod tolerates the node with taint", tainted("NoSchedule"),
       {{.node = "n1", .constraints = kSkew1, .tolerations = tolerate}, pinned}, "{}", 1, {"pod-0"}},
      {"2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node",
       tainted("NoSchedule"), {{.node = "n1", .constraints = kSkew1}, pinned}, "{}", 0},
      {"2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node, and NodeFit is "
       "enabled",
       tainted("NoSchedule"), {{.node = "n1", .constraints = kSkew1}, pinned}, "{}", 0, {}, true},
      {"2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with PreferNoSchedule Taint", tainted("PreferNoSchedule"),
       {{.node = "n1", .constraints = kSkew1}, pinned}, "{}", 1, {"pod-0"}},
  });
}

TEST(RemovePodsViolatingTopologySpreadConstraint, LabelSelectorAndMatchLabelKeys) {
  auto selector = [](const std::string& op, const std::string& value) {
    return R"({"labelSelector": {"matchExpressions": [{"key": "foo", "operator": ")" + op + R"(", "values": [")" + value +
           R"("]}]}})";
  };
  json by_rs = kSkew1;
  by_rs[0]["matchLabelKeys"] = json::array({"pod-template-hash"});
  const Labels rs_foo = {{"foo", "bar"}, {"pod-template-hash", "foo"}};
  const Labels rs_bar = {{"foo", "bar"}, {"pod-template-hash", "bar"}};
  check({
      {"2 domains, sizes [2,0], maxSkew=1, move 0 pod for node with unmatched label filtering", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.node = "n1"}}, selector("In", "baz"), 0},
      {"2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.node = "n1"}}, selector("In", "bar"), 1, {"pod-1"}},
      {"2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering (NotIn op)", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.node = "n1"}}, selector("NotIn", "baz"), 1, {"pod-1"}},
      {"2 domains, sizes [2,0], maxSkew=1, move 1 pods given matchLabelKeys on same replicaset", two_zones(),
       {{.node = "n1", .constraints = by_rs, .labels = rs_foo}, {.node = "n1", .constraints = by_rs, .labels = rs_foo}},
       selector("NotIn", "baz"), 1, {"pod-1"}},
      {"2 domains, sizes [2,0], maxSkew=1, move 0 pods given matchLabelKeys on two different replicasets", two_zones(),
       {{.node = "n1", .constraints = by_rs, .labels = rs_foo}, {.node = "n1", .constraints = by_rs, .labels = rs_bar}},
       selector("NotIn", "baz"), 0},
      {"2 domains, sizes [4,2], maxSkew=1, 2 pods in termination; nothing should be moved", two_zones(),
       {{.count = 2, .node = "n1", .constraints = kSkew1},
        {.count = 2, .node = "n1", .constraints = kSkew1, .terminating = true},
        {.count = 2, .node = "n2", .constraints = kSkew1}},
       selector("In", "bar"), 0},
  });
}

TEST(RemovePodsViolatingTopologySpreadConstraint, TopologyBalanceNodeFit) {
  auto node9 = [](const std::string& name, int cpu, const std::string& zone) {
    return test_node(name, cpu, {{"zone", zone}}, nullptr, "2000", "9");
  };
  const std::vector<json> three = {node9("n1", 250, "zoneA"), node9("n2", 1000, "zoneB"), node9("n3", 1000, "zoneC")};
  const std::vector<Pods> sizes = {{.count = 2, .node = "n1", .constraints = kSkew1},
                                   {.count = 3, .node = "n2", .constraints = kSkew1},
                                   {.count = 4, .node = "n3", .constraints = kSkew1}};
  check({
      {"3 domains, sizes [2,3,4], maxSkew=1, NodeFit is enabled, and not enough cpu on zoneA; nothing should be moved",
       three, sizes, "{}", 0, {}, true},
      // A difference (docs/descheduler.md): upstream evicts one here; weft's nodeFit is the
      // scheduler's fit, whose spread filter takes the pod on no other node (zoneA lacks
      // cpu, zoneB would be 2 over zoneA), so it stays.
      {"3 domains, sizes [2,3,4], maxSkew=1, args.NodeFit is false, and not enough cpu on zoneA; 1 should be moved to "
       "force scale-up",
       three, sizes, R"({"topologyBalanceNodeFit": false})", 0, {}, true},
      {"the same with the evictor's nodeFit off: one moves to force a scale-up", three, sizes,
       R"({"topologyBalanceNodeFit": false})", 1},
      {"3 domains, sizes [[1,0], [1,1], [2,1]], maxSkew=1, NodeFit is enabled, and not enough cpu on ZoneA; nothing "
       "should be moved",
       {node9("A1", 150, "zoneA"), node9("B1", 1000, "zoneB"), node9("C1", 1000, "zoneC"), node9("A2", 50, "zoneA"),
        node9("B2", 1000, "zoneB"), node9("C2", 1000, "zoneC")},
       {{.node = "A1", .constraints = kSkew1},
        {.node = "B1", .constraints = kSkew1},
        {.node = "B2", .constraints = kSkew1},
        {.count = 2, .node = "C1", .constraints = kSkew1},
        {.node = "C2", .constraints = kSkew1}},
       "{}", 0, {}, true},
      {"2 domains, sizes [[1,4], [2,1]], maxSkew=1, NodeFit is enabled; should move 1",
       {node9("A1", 1000, "zoneA"), node9("A2", 1000, "zoneA"), node9("B1", 1000, "zoneB"), node9("B2", 1000, "zoneB")},
       {{.node = "A1", .constraints = kSkew1},
        {.count = 4, .node = "A2", .constraints = kSkew1},
        {.count = 2, .node = "B1", .constraints = kSkew1},
        {.node = "B2", .constraints = kSkew1}},
       "{}", 1, {"pod-4"}, true},
  });
}

TEST(RemovePodsViolatingTopologySpreadConstraint, TaintedNodesOutsideTheAffinityDoNotCount) {
  // kubernetes-sigs/descheduler#839: hostname domains; the pods' node affinity
  // (app_service Exists) leaves the tainted control-plane and infra nodes out.
  const std::vector<json> nodes = {
      test_node("controlplane1", 2000, {{"zone", "zoneA"}, {"kubernetes.io/hostname", "cp-1"}},
                json::array({taint("node-role.kubernetes.io/controlplane", "true"), taint("node-role.kubernetes.io/etcd", "true")})),
      test_node("infraservices1", 2000, {{"zone", "zoneA"}, {"infra_service", "true"}, {"kubernetes.io/hostname", "infra-1"}},
                json::array({taint("infra_service", "")})),
      test_node("app1", 2000, {{"zone", "zoneA"}, {"app_service", "true"}, {"kubernetes.io/hostname", "app-1"}}),
      test_node("app2", 2000, {{"zone", "zoneB"}, {"app_service", "true"}, {"kubernetes.io/hostname", "app-2"}})};
  json c = one(constraint(1, "DoNotSchedule", "kubernetes.io/hostname"));
  c[0]["labelSelector"] = {{"matchLabels", {{"app.kubernetes.io/name", "service"}}}};
  const Labels service = {{"app.kubernetes.io/name", "service"}};
  const json app_service = required_node_affinity("app_service", "Exists");
  check({{"2 domains, sizes [3, 1], maxSkew=1, Tainted nodes; nothing should be moved", nodes,
          {{.count = 2, .node = "app1", .constraints = c, .node_affinity = app_service, .labels = service},
           {.count = 2, .node = "app2", .constraints = c, .node_affinity = app_service, .labels = service}},
          "{}", 0, {}, true}});
}

// TestSortDomains as facts: inside the domain a pod leaves from, pods with a nodeSelector or
// node affinity go last, and among the rest the highest priority goes first (upstream
// sorts ascending and takes from the back); pods without a priority count lowest.
// Its "empty input" has no fact beyond a plan without evictions; its non-evictable pods
// are not listed here (the evictor's Filter drops them first); "domain with pods having
// different selector/affinity" orders an empty nodeAffinity as one with it, weft as one
// without (a documented difference; the row's order is the same either way, by priority);
// TestCheckIdenticalConstraints is the scheduler's
// spread_identity.
TEST(RemovePodsViolatingTopologySpreadConstraint, OrderInsideADomain) {
  check({
      {"multiple domains with different priorities and selectors: unpinned pods, the higher priority leaves first", two_zones(),
       {{.node = "n1", .constraints = kSkew1, .priority = 20}, {.node = "n1", .priority = 5}}, "{}", 1, {"pod-0"}},
      {"single domain with mixed pods: a pod with node affinity leaves after one without, whatever their priorities", two_zones(),
       {{.node = "n1", .constraints = kSkew1, .node_affinity = required_node_affinity("zone", "Exists"), .priority = 10},
        {.node = "n1", .priority = 15},
        {.node = "n1", .node_affinity = required_node_affinity("zone", "Exists"), .priority = 30},
        {.node = "n1", .priority = 1}},
       "{}", 2, {"pod-1", "pod-3"}},
      {"domain with pods having different selector/affinity: an empty nodeAffinity of lower priority stays",
       two_zones(),
       {{.node = "n1", .constraints = kSkew1, .node_affinity = json::object(), .priority = 10}, {.node = "n1", .priority = 15}},
       "{}", 1, {"pod-1"}},
      {"a pod without priority counts lowest", two_zones(),
       {{.node = "n1", .constraints = kSkew1}, {.node = "n1", .priority = 0}}, "{}", 1, {"pod-1"}},
  });
}

// Pods the evictor's Filter refuses are not counted (upstream lists the plugin's pods
// through the evictor's Filter): [3,1] with two of zoneA's pods bare is [1,1].
TEST(RemovePodsViolatingTopologySpreadConstraint, PodsTheEvictorRefusesDoNotCount) {
  check({{"bare pods do not count", two_zones(),
          {{.node = "n1", .constraints = kSkew1}, {.count = 2, .node = "n1", .no_owner = true}, {.node = "n2"}}, "{}", 0}});
}

// Pods on a node the constraint's inclusion policies leave out still count in that node's
// domain (upstream counts every listed pod on a node with the key; only the domains it
// starts from and the nodes it moves pods to follow the policies): zoneB's one node is
// tainted and nodeTaintsPolicy is Honor, yet its three pods count, so [1,3] moves one to
// zoneA.
TEST(RemovePodsViolatingTopologySpreadConstraint, PodsOnNodesThePoliciesLeaveOutStillCount) {
  json honor = kSkew1;
  honor[0]["nodeTaintsPolicy"] = "Honor";
  const std::vector<json> nodes = {zone_node("n1", "zoneA"), zone_node("n2", "zoneA"),
                                   test_node("n3", 2000, {{"zone", "zoneB"}}, json::array({taint("dedicated", "x")}))};
  const json tolerate = json::array({{{"key", "dedicated"}, {"operator", "Exists"}}});
  check({{"pods on a tainted node count for a constraint honouring taints", nodes,
          {{.node = "n1", .constraints = honor}, {.count = 3, .node = "n3", .tolerations = tolerate}}, "{}", 1}});
}

TEST(RemovePodsViolatingTopologySpreadConstraint, Validation) {
  auto defaults = ts::parse_args(ctx(), nullptr, "args");
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(defaults->hard);
  EXPECT_FALSE(defaults->soft);
  EXPECT_TRUE(defaults->topology_balance_node_fit);
  auto ok = [](const char* text) { return ts::parse_args(ctx(), json::parse(text), "args").ok(); };
  // validation_test.go
  EXPECT_TRUE(ok(R"({"namespaces": {"include": ["default"]}})"));
  EXPECT_FALSE(ok(R"({"namespaces": {"include": ["default"], "exclude": ["kube-system"]}})"));
  EXPECT_TRUE(ok(R"({"labelSelector": {"matchLabels": {"role.kubernetes.io/node": ""}}})"));
  EXPECT_FALSE(ok(R"({"labelSelector": {"matchExpressions": [{"operator": "In"}]}})"));
  EXPECT_TRUE(ok(R"({"constraints": ["DoNotSchedule", "ScheduleAnyway"]})"));
  auto wrong = ts::parse_args(ctx(), json::parse(R"({"constraints": ["foo"]})"), "args");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("args.constraints[0]"), std::string::npos) << wrong.message();
  // Types and unknown fields.
  EXPECT_FALSE(ok(R"({"topologyBalanceNodeFit": "yes"})"));
  EXPECT_FALSE(ok(R"({"maxSkew": 1})"));
  // An empty list is the default (DoNotSchedule), as upstream's defaulting.
  auto empty = ts::parse_args(ctx(), json::parse(R"({"constraints": []})"), "args");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->hard);
  EXPECT_FALSE(empty->soft);
}

}  // namespace
}  // namespace weft::descheduler::test
