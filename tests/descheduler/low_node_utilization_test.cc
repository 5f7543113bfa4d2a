// LowNodeUtilization: the Kubernetes descheduler's lownodeutilization_test.go as facts.
// Each row runs twice as upstream does: on requests, and with metricsUtilization
// {source: KubernetesMetrics} on the row's NodeMetrics/PodMetrics. Upstream runs every row
// with DefaultEvictorArgs{nodeFit: true}. Nodes are n1 (4 cores, 3000 bytes, 9 pods), n2
// (4 cores, 3000 bytes, 10 pods) and the unschedulable n3 (10 pods) unless a row says
// otherwise; pods request 400m cpu and no memory.
#include <gtest/gtest.h>

#include "descheduler/core/kubernetes_metrics.h"
#include "descheduler/core/plan_output.h"
#include "tests/descheduler/metrics_fixtures.h"
#include "tests/descheduler/upstream_fixtures.h"

namespace weft::descheduler::test {
namespace {

json in_namespace(json p, const std::string& ns) {
  p["metadata"]["namespace"] = ns;
  return p;
}

std::string lnu_policy(const std::string& args, bool metrics, const std::string& evictor = "{nodeFit: true}",
                       const std::string& top = "") {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" + top +
         (metrics ? "metricsProviders:\n- source: KubernetesMetrics\n" : "") +
         "profiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n    args: " + evictor +
         "\n  - name: LowNodeUtilization\n    args:\n      " + args +
         (metrics ? "\n      metricsUtilization: {source: KubernetesMetrics}" : "") +
         "\n  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n";
}

struct Metrics {
  json nodes = json::array();
  json pods = json::array();
};

// The row's plan on requests (metrics == nullptr) or on the given metrics.
Plan run(const std::vector<json>& objs, const std::string& args, const Metrics* metrics,
         const std::string& evictor = "{nodeFit: true}", const std::string& top = "") {
  auto pol = parse_policy_text(lnu_policy(args, metrics != nullptr, evictor, top), "lnu.yaml");
  EXPECT_TRUE(pol.ok()) << pol.message();
  if (!pol.ok()) return {};
  Cluster c = build(objs);
  LoadReport none;
  none.source_error = "not read";
  return plan(c, metrics ? load_from_kubernetes_metrics(metrics->nodes, metrics->pods, c, "m") : none, *pol);
}

std::vector<std::string> evicted_names(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& e : p.evictions) out.push_back(e.name);
  std::sort(out.begin(), out.end());
  return out;
}

const std::string kCpuPods = "thresholds: {cpu: 30, pods: 30}\n      targetThresholds: {cpu: 50, pods: 50}";

std::vector<json> three_nodes() { return {unode("n1", "9"), unode("n2", "10"), unode("n3", "10", true)}; }

// p1..p5 evictable (as `evictable` builds them), p6 a DaemonSet pod, p7 a mirror pod with
// local storage, p8 system-critical, all on n1; p9 on n2.
std::vector<json> standard_pods(const std::function<json(int)>& evictable, Kind p8 = Kind::Critical) {
  std::vector<json> objs = three_nodes();
  for (int i = 1; i <= 5; ++i) objs.push_back(evictable(i));
  objs.push_back(upod("p6", "n1", Kind::DS));
  objs.push_back(upod("p7", "n1", Kind::Mirror));
  objs.push_back(upod("p8", "n1", p8));
  objs.push_back(upod("p9", "n2"));
  return objs;
}

json rs_pod(int i) { return upod("p" + std::to_string(i), "n1"); }

// NodeMetrics n1 3201m, n2 401m, n3 `n3_cpu`; PodMetrics `cpu` for the named pods.
Metrics usual_metrics(int pods = 5, const std::string& cpu = "401m", const std::string& n3_cpu = "11m") {
  Metrics m;
  m.nodes = json::array({node_metrics("n1", "3201m", "0"), node_metrics("n2", "401m", "0"), node_metrics("n3", n3_cpu, "0")});
  for (int i = 1; i <= pods; ++i) m.pods.push_back(pod_metrics("p" + std::to_string(i), cpu));
  return m;
}

TEST(LowNodeUtilizationTable, NoEvictablePods) {
  SCOPED_TRACE("upstream: no evictable pods");
  std::vector<json> objs = three_nodes();
  for (int i = 1; i <= 4; ++i) objs.push_back(upod("p" + std::to_string(i), "n1", Kind::DS));
  objs.push_back(upod("p5", "n1", Kind::Mirror));
  json p6 = upod("p6", "n1", Kind::Critical);
  p6["metadata"].erase("ownerReferences");
  objs.push_back(p6);
  objs.push_back(upod("p9", "n2"));
  Metrics m;
  m.nodes = json::array({node_metrics("n1", "2401m", "1714978816"), node_metrics("n2", "401m", "1714978816"),
                         node_metrics("n3", "10m", "1714978816")});
  EXPECT_EQ(run(objs, kCpuPods, nullptr).evictions.size(), 0u);
  EXPECT_EQ(run(objs, kCpuPods, &m).evictions.size(), 0u);
}

// Upstream's stopping rule: n2 has 1600m (requests) or 1599m (usage) below 50 %; each
// eviction spends 400m (401m); the fourth is allowed while room is left and lands n2 at
// 50 % (50.1 %). "stop when cpu capacity is depleted" is the same row with n3 at 0m.
TEST(LowNodeUtilizationTable, WithoutPrioritiesStopsWhenTheRoomIsSpent) {
  SCOPED_TRACE("upstream: without priorities");
  SCOPED_TRACE("upstream: without priorities stop when cpu capacity is depleted");
  std::vector<json> objs = standard_pods(rs_pod);
  Plan requests = run(objs, kCpuPods, nullptr);
  EXPECT_EQ(requests.evictions.size(), 4u) << plan_to_json(requests).dump();
  for (const char* n3 : {"11m", "0m"}) {
    Metrics m = usual_metrics(5, "401m", n3);
    Plan usage = run(objs, kCpuPods, &m);
    EXPECT_EQ(usage.evictions.size(), 4u) << plan_to_json(usage).dump();
    for (const auto& e : usage.evictions) EXPECT_EQ(e.to, "n2");
  }
}

TEST(LowNodeUtilizationTable, ExcludedNamespaces) {
  SCOPED_TRACE("upstream: without priorities, but excluding namespaces");
  std::vector<json> objs = standard_pods([](int i) { return in_namespace(upod("p" + std::to_string(i), "n1", Kind::PodOwner), "namespace1"); });
  const std::string args = kCpuPods + "\n      evictableNamespaces: {exclude: [namespace1]}";
  Plan p = run(objs, args, nullptr);
  EXPECT_EQ(p.evictions.size(), 0u);
  EXPECT_EQ(reason_of(p, "namespace1/p1"), "namespace-excluded");
  Metrics m = usual_metrics();
  EXPECT_EQ(run(objs, args, &m).evictions.size(), 0u);
}

// Upstream's validation refuses `include` for LowNodeUtilization (its row calls the plugin
// without validating). Without it the same cluster gives the row's two evictions: p3..p5
// are bare pods in other namespaces.
TEST(LowNodeUtilizationTable, IncludeOnlyDefaultNamespace) {
  SCOPED_TRACE("upstream: without priorities, but include only default namespace");
  std::vector<json> objs = standard_pods([](int i) {
    std::string name = "p" + std::to_string(i);
    return i <= 2 ? upod(name, "n1") : in_namespace(upod(name, "n1", Kind::Bare), "namespace" + std::to_string(i));
  });
  auto refused = parse_policy_text(lnu_policy(kCpuPods + "\n      evictableNamespaces: {include: [default]}", false), "x");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("evictableNamespaces"), std::string::npos) << refused.message();
  EXPECT_EQ(evicted_names(run(objs, kCpuPods, nullptr)), (std::vector<std::string>{"p1", "p2"}));
  Metrics m = usual_metrics();
  EXPECT_EQ(evicted_names(run(objs, kCpuPods, &m)), (std::vector<std::string>{"p1", "p2"}));
}

TEST(LowNodeUtilizationTable, WithPriorities) {
  SCOPED_TRACE("upstream: with priorities");
  std::vector<json> objs = three_nodes();
  for (int i = 1; i <= 4; ++i) objs.push_back(upod("p" + std::to_string(i), "n1", Kind::RS, "400m", "0", 10000));
  objs.push_back(upod("p5", "n1", Kind::RS, "400m", "0", 0));
  objs.push_back(upod("p6", "n1", Kind::DS, "400m", "0", 10000));
  objs.push_back(upod("p7", "n1", Kind::Mirror));
  objs.push_back(upod("p8", "n1", Kind::Critical));
  objs.push_back(upod("p9", "n2"));
  Plan requests = run(objs, kCpuPods, nullptr);
  ASSERT_EQ(requests.evictions.size(), 4u) << plan_to_json(requests).dump();
  EXPECT_EQ(requests.evictions[0].name, "p5");   // the low-priority pod first
  Metrics m = usual_metrics();
  EXPECT_EQ(run(objs, kCpuPods, &m).evictions.size(), 4u);
}

// n1 is over its pod target only (8 of 9 pods; 1600m requested): the four best-effort
// pods go, p3 (burstable) stays.
TEST(LowNodeUtilizationTable, BestEffortPodsOnly) {
  SCOPED_TRACE("upstream: without priorities evicting best-effort pods only");
  std::vector<json> objs = standard_pods([](int i) {
    return upod("p" + std::to_string(i), "n1", i == 3 ? Kind::RS : Kind::BestEffort);
  });
  const std::vector<std::string> expected = {"p1", "p2", "p4", "p5"};
  EXPECT_EQ(evicted_names(run(objs, kCpuPods, nullptr)), expected);
  Metrics m = usual_metrics();
  EXPECT_EQ(evicted_names(run(objs, kCpuPods, &m)), expected);
}

const std::string kPodsExt = "thresholds: {pods: 30, example.com/foo: 30}\n      targetThresholds: {pods: 50, example.com/foo: 50}";

// n2 has 4 of 8 devices below 50 % and uses one: three pods of one device each go. With
// metricsUtilization upstream takes the policy and evicts nothing (metrics.k8s.io has no
// such resource); weft refuses the policy, naming the threshold.
TEST(LowNodeUtilizationTable, ExtendedResource) {
  SCOPED_TRACE("upstream: with extended resource");
  std::vector<json> objs = {unode("n1", "9", false, 8), unode("n2", "10", false, 8), unode("n3", "10", true)};
  for (int i = 1; i <= 5; ++i) objs.push_back(with_ext(upod("p" + std::to_string(i), "n1", Kind::RS, "0"), 1));
  objs.push_back(with_ext(upod("p6", "n1", Kind::PodOwner, "0"), 1));
  objs.push_back(with_ext(upod("p7", "n1", Kind::Mirror, "0"), 1));
  objs.push_back(with_ext(upod("p8", "n1", Kind::Critical, "0"), 1));
  objs.push_back(with_ext(upod("p9", "n2", Kind::RS, "0"), 1));
  Plan p = run(objs, kPodsExt, nullptr);
  EXPECT_EQ(p.evictions.size(), 3u) << plan_to_json(p).dump();
  auto refused = parse_policy_text(lnu_policy(kPodsExt, true), "x");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("thresholds.example.com/foo: is not in metrics.k8s.io"), std::string::npos)
      << refused.message();
}

TEST(LowNodeUtilizationTable, ExtendedResourceOnSomeNodes) {
  SCOPED_TRACE("upstream: with extended resource in some of nodes");
  std::vector<json> objs = {unode("n1", "9", false, 8), unode("n2", "10"), unode("n3", "10", true),
                            with_ext(upod("p1", "n1", Kind::RS, "0"), 1), upod("p9", "n2", Kind::RS, "0")};
  EXPECT_EQ(run(objs, kPodsExt, nullptr).evictions.size(), 0u);
}

// Deviation: mean pods 16.7 %, devices 33.3 %; n1 is low, n2 (7 of 8 devices) high. n1
// may hold floor(21.7 % of 10) = 2 pods: one more. p2 and p3 are both BestEffort (no cpu
// or memory requests); weft takes the one that uses most, p2.
TEST(LowNodeUtilizationTable, ExtendedResourceOnSomeNodesWithDeviation) {
  SCOPED_TRACE("upstream: with extended resource in some of nodes with deviation");
  std::vector<json> objs = {unode("n1", "10", false, 8), unode("n2", "10", false, 8), unode("n3", "10", true),
                            with_ext(upod("p1", "n1", Kind::RS, "0"), 1), with_ext(upod("p2", "n2", Kind::RS, "0"), 7),
                            upod("p3", "n2", Kind::RS, "0"), upod("p8", "n3", Kind::RS, "0"), upod("p9", "n3", Kind::RS, "0")};
  const std::string args = "useDeviationThresholds: true\n      thresholds: {pods: 5, example.com/foo: 10}\n"
                           "      targetThresholds: {pods: 5, example.com/foo: 10}";
  EXPECT_EQ(evicted_names(run(objs, args, nullptr)), std::vector<std::string>{"p2"});
}

TEST(LowNodeUtilizationTable, OnlyOtherNodeUnschedulable) {
  SCOPED_TRACE("upstream: without priorities, but only other node is unschedulable");
  std::vector<json> objs = {unode("n1", "9"), unode("n2", "10", true)};
  for (int i = 1; i <= 5; ++i) objs.push_back(rs_pod(i));
  objs.push_back(upod("p6", "n1", Kind::DS));
  objs.push_back(upod("p7", "n1", Kind::Mirror));
  objs.push_back(upod("p8", "n1", Kind::Critical));
  Metrics m = usual_metrics();
  m.nodes.erase(2);
  EXPECT_EQ(run(objs, kCpuPods, nullptr).evictions.size(), 0u);
  EXPECT_EQ(run(objs, kCpuPods, &m).evictions.size(), 0u);
}

// n1 (9 pods) with p1..p3, and p4/p5 wanting datacenter=west by nodeSelector or by
// required node affinity, then p6..p8 protected; n2 (10 pods) is east, with p9 (0m) when
// `p9`.
std::vector<json> west_only_cluster(bool affinity, bool p9) {
  std::vector<json> objs = {unode("n1", "9"), unode("n2", "10", false, 0, {{"datacenter", "east"}})};
  for (int i = 1; i <= 5; ++i) {
    json p = upod("p" + std::to_string(i), "n1", i <= 3 ? Kind::RS : Kind::PodOwner);
    if (i > 3 && !affinity) p["spec"]["nodeSelector"] = {{"datacenter", "west"}};
    if (i > 3 && affinity)
      p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] =
          json::array({{{"matchExpressions", json::array({{{"key", "datacenter"}, {"operator", "In"}, {"values", {"west"}}}})}}});
    objs.push_back(p);
  }
  objs.push_back(upod("p6", "n1", Kind::DS));
  objs.push_back(upod("p7", "n1", Kind::Mirror));
  objs.push_back(upod("p8", "n1", Kind::Critical));
  if (p9) objs.push_back(upod("p9", "n2", Kind::RS, "0"));
  return objs;
}

// p4 and p5 fit nowhere, p1..p3 go.
TEST(LowNodeUtilizationTable, OtherNodeDoesNotMatchSelectorOrAffinity) {
  SCOPED_TRACE("upstream: without priorities, but only other node doesn't match pod node selector for p4 and p5");
  SCOPED_TRACE("upstream: without priorities, but only other node doesn't match pod node affinity for p4 and p5");
  for (bool affinity : {false, true}) {
    std::vector<json> objs = west_only_cluster(affinity, affinity);
    Metrics m = usual_metrics(3);
    m.nodes.erase(2);
    Plan p = run(objs, kCpuPods, nullptr);
    EXPECT_EQ(evicted_names(p), (std::vector<std::string>{"p1", "p2", "p3"})) << plan_to_json(p).dump();
    EXPECT_EQ(reason_of(p, "default/p4"), "node-fit");
    EXPECT_EQ(evicted_names(run(objs, kCpuPods, &m)), (std::vector<std::string>{"p1", "p2", "p3"}));
  }
}

const std::string kDeviation = "useDeviationThresholds: true\n      thresholds: {cpu: 5, pods: 5}\n"
                               "      targetThresholds: {cpu: 5, pods: 5}";

// Mean cpu 30 %, pods 33 %: n2 may hold floor(38 % of 10) = 3 pods, two more.
TEST(LowNodeUtilizationTable, DeviationThresholds) {
  SCOPED_TRACE("upstream: deviation thresholds");
  std::vector<json> objs = standard_pods(rs_pod, Kind::Critical);
  EXPECT_EQ(run(objs, kDeviation, nullptr).evictions.size(), 2u);
  Metrics m = usual_metrics();
  EXPECT_EQ(run(objs, kDeviation, &m).evictions.size(), 2u);
}

// n2's memory is fully requested (p9 asks all 3000 bytes): memory counts in upstream's
// room even without a threshold, so nothing moves.
TEST(LowNodeUtilizationTable, DeviationThresholdsAndOverevictingMemory) {
  SCOPED_TRACE("upstream: deviation thresholds and overevicting memory");
  std::vector<json> objs = {unode("n1", "10"), unode("n2", "10"), unode("n3", "10", true)};
  for (int i = 1; i <= 5; ++i) objs.push_back(upod("p" + std::to_string(i), "n1", Kind::RS, "400m", "375"));
  objs.push_back(upod("p6", "n1", Kind::DS, "400m", "375"));
  objs.push_back(upod("p7", "n1", Kind::Mirror, "400m", "375"));
  objs.push_back(upod("p8", "n1", Kind::Critical, "400m", "375"));
  objs.push_back(upod("p9", "n2", Kind::RS, "400m", "3000"));
  Plan p = run(objs, kDeviation, nullptr);
  EXPECT_EQ(p.evictions.size(), 0u) << plan_to_json(p).dump();
  Metrics m;
  for (const char* n : {"n1", "n2", "n3"}) m.nodes.push_back(node_metrics(n, "4000m", "3000"));
  for (int i = 1; i <= 8; ++i) m.pods.push_back(pod_metrics("p" + std::to_string(i), "400m", "375"));
  m.pods.push_back(pod_metrics("p9", "400m", "3000"));
  EXPECT_EQ(run(objs, kDeviation, &m).evictions.size(), 0u);
}

// Requests: three 400m pods go (p4/p5 fit nowhere). Usage: p1..p3 burn 801m; n2 (401m)
// has 1599m of room: two of them spend it.
TEST(LowNodeUtilizationTable, DifferentEvictionsForRequestedAndActualResources) {
  SCOPED_TRACE("upstream: without priorities different evictions for requested and actual resources");
  std::vector<json> objs = west_only_cluster(true, true);
  Metrics m = usual_metrics(3, "801m");
  m.nodes.erase(2);
  EXPECT_EQ(run(objs, kCpuPods, nullptr).evictions.size(), 3u);
  Plan usage = run(objs, kCpuPods, &m);
  EXPECT_EQ(usage.evictions.size(), 2u) << plan_to_json(usage).dump();
}

TEST(LowNodeUtilizationTable, NodeEvictionLimit) {
  SCOPED_TRACE("upstream: without priorities with node eviction limit");
  std::vector<json> objs = standard_pods(rs_pod);
  const std::string args = kCpuPods + "\n      evictionLimits: {node: 2}";
  EXPECT_EQ(run(objs, args, nullptr).evictions.size(), 2u);
  Metrics m = usual_metrics(3);
  EXPECT_EQ(run(objs, args, &m).evictions.size(), 2u);
}

// TestLowNodeUtilizationWithTaints: thresholds pods 20 / 70, nodeFit, at most the
// expected number per node; n1 has 2 cores, n2 and n3 one, 10 pods each, pods ask 200m.
TEST(LowNodeUtilizationTable, Taints) {
  auto tainted = [] {
    json n = unode("n3", "10", false, 0, {}, "1000m");
    n["spec"]["taints"] = json::array({{{"key", "key"}, {"value", "value"}, {"effect", "NoSchedule"}}});
    return n;
  };
  auto n1_pods = [](int count, bool tolerating) {
    std::vector<json> out;
    for (int i = 1; i <= count; ++i) out.push_back(upod("pod_" + std::to_string(i) + "_n1", "n1", Kind::RS, "200m"));
    if (tolerating) {
      json t = upod("tolerate_pod", "n1", Kind::RS, "200m");
      t["spec"]["tolerations"] = json::array({{{"key", "key"}, {"value", "value"}}});
      out.push_back(t);
    }
    return out;
  };
  const std::string args = "thresholds: {pods: 20}\n      targetThresholds: {pods: 70}";
  struct Row {
    const char* name;
    std::vector<json> objs;
    int per_node, total;
    size_t expected;
  };
  std::vector<json> no_taints = {unode("n1", "10", false, 0, {}, "2000m"), unode("n2", "10", false, 0, {}, "1000m"),
                                 unode("n3", "10", false, 0, {}, "1000m"), upod("pod_9_n2", "n2", Kind::RS, "200m")};
  for (auto& p : n1_pods(8, false)) no_taints.push_back(p);
  std::vector<json> untolerated = {unode("n1", "10", false, 0, {}, "2000m"), tainted(), upod("pod_9_n3", "n3", Kind::RS, "200m")};
  for (auto& p : n1_pods(8, false)) untolerated.push_back(p);
  std::vector<json> tolerated = {unode("n1", "10", false, 0, {}, "2000m"), tainted(), upod("pod_9_n3", "n3", Kind::RS, "200m")};
  for (auto& p : n1_pods(7, true)) tolerated.push_back(p);
  for (const Row& row : std::vector<Row>{{"No taints", no_taints, 1, -1, 1},
                                         {"No pod tolerates node taint", untolerated, 0, -1, 0},
                                         {"Pod which tolerates node taint", tolerated, 1, -1, 1},
                                         {"Pod which tolerates node taint, set maxPodsToEvictTotal(0), should not be expelled", tolerated, 1, 0, 0}}) {
    std::string top = "maxNoOfPodsToEvictPerNode: " + std::to_string(row.per_node) + "\n";
    if (row.total >= 0) top += "maxNoOfPodsToEvictTotal: " + std::to_string(row.total) + "\n";
    Plan p = run(row.objs, args, nullptr, "{nodeFit: true}", row.per_node > 0 ? top : "");
    EXPECT_EQ(p.evictions.size(), row.expected) << row.name << ": " << plan_to_json(p).dump();
    if (row.expected == 1 && std::string(row.name).find("Pod which tolerates") == 0) {
      EXPECT_EQ(p.evictions[0].name, "tolerate_pod");
    }
    // Without nodeFit the taint still decides (upstream asks it of the low nodes always).
    Plan no_fit = run(row.objs, args, nullptr, "{}", row.per_node > 0 ? top : "");
    EXPECT_EQ(no_fit.evictions.size(), row.expected) << row.name << " without nodeFit";
  }
}

}  // namespace
}  // namespace weft::descheduler::test
