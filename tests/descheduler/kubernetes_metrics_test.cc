// LowNodeUtilization's metricsUtilization from the metrics.k8s.io API: NodeMetrics and
// PodMetrics read as load, the policy rows upstream validates, and the plan on actual usage
// (fresh: acted on; stale: the node is unknown and nothing moves).
#include <gtest/gtest.h>

#include "descheduler/app/load_source.h"
#include "descheduler/core/kubernetes_metrics.h"
#include "descheduler/core/plan_output.h"
#include "descheduler/core/policy.h"
#include "tests/descheduler/metrics_fixtures.h"
#include "tests/support/process.h"

namespace weft::descheduler {
namespace {

using namespace test;

std::string lnu_with_metrics(const std::string& top, const std::string& metrics_utilization,
                             const std::string& thresholds = "{cpu: 30, pods: 30}",
                             const std::string& targets = "{cpu: 50, pods: 50}") {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" + top +
         "profiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n    args: {}\n"
         "  - name: LowNodeUtilization\n    args:\n      thresholds: " + thresholds + "\n      targetThresholds: " +
         targets + "\n      metricsUtilization: " + metrics_utilization +
         "\n  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n";
}

const std::string kProvider = "metricsProviders:\n- source: KubernetesMetrics\n";

Policy metrics_policy() {
  auto p = parse_policy_text(lnu_with_metrics(kProvider, "{source: KubernetesMetrics}"), "lnu.yaml");
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? *p : Policy{};
}

TEST(KubernetesMetrics, NodeUsageIsOverAllocatableAndDatedByItsTimestamp) {
  Cluster c = build({node("n1", {}, "4", "8Gi"), node("n2"), node("n3")});
  json nodes = {{"items", json::array({node_metrics("n1", "3200m", "2Gi"), node_metrics("n2", "1", "1Gi", "soon"),
                                       node_metrics("ghost", "1", "1Gi")})}};
  json pods = json::array({pod_metrics("p1", "250m", "64Mi"), pod_metrics("p2", "1")});
  pods[1]["containers"].push_back({{"name", "side"}, {"usage", {{"cpu", "500m"}}}});   // no memory reading
  LoadReport r = load_from_kubernetes_metrics(nodes, pods, c, "metrics.k8s.io/v1beta1");
  ASSERT_EQ(r.nodes.count("n1"), 1u);
  EXPECT_DOUBLE_EQ(r.nodes.at("n1").cpu, 0.8);
  EXPECT_DOUBLE_EQ(r.nodes.at("n1").memory, 0.25);
  EXPECT_EQ(r.nodes.at("n1").cpu_at, t0());
  EXPECT_EQ(r.nodes.at("n1").memory_at, t0());
  EXPECT_NE(r.invalid.at("n2").find("timestamp"), std::string::npos) << r.invalid.at("n2");
  EXPECT_EQ(r.nodes.count("n3") + r.invalid.count("n3") + r.nodes.count("ghost"), 0u);   // n3: no data, unknown
  EXPECT_DOUBLE_EQ(*r.pods.at("default/p1").cpu_cores, 0.25);
  EXPECT_DOUBLE_EQ(*r.pods.at("default/p1").memory_bytes, 64.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*r.pods.at("default/p2").cpu_cores, 1.5);
  EXPECT_FALSE(r.pods.at("default/p2").memory_bytes);   // a container without it: requests size the pod
}

TEST(KubernetesMetrics, PolicyAcceptsWhatUpstreamValidates) {
  Policy p = metrics_policy();
  EXPECT_TRUE(p.kubernetes_metrics);
  EXPECT_FALSE(p.profiles[0].load_aware.requests_only);
  EXPECT_EQ(p.profiles[0].load_aware.metrics.type, MetricsType::KubernetesMetrics);
  auto server = parse_policy_text(lnu_with_metrics("metricsCollector:\n  enabled: true\n", "{metricsServer: true}"), "x");
  ASSERT_TRUE(server.ok()) << server.message();
  EXPECT_EQ(server->profiles[0].load_aware.metrics.type, MetricsType::KubernetesMetrics);
  auto lone = parse_policy_text(lnu_with_metrics(kProvider, "null"), "x");   // the provider alone changes nothing
  ASSERT_TRUE(lone.ok()) << lone.message();
  EXPECT_TRUE(lone->profiles[0].load_aware.requests_only);
}

TEST(KubernetesMetrics, PolicyRefusalsNameTheField) {
  const std::string at = "x: profiles[0].pluginConfig[1].args.";
  struct Row { std::string yaml, error; };
  for (const Row& row : std::vector<Row>{
           {lnu_with_metrics("", "{source: KubernetesMetrics}"),
            at + "metricsUtilization: reads metrics.k8s.io, which the policy does not enable"},
           {lnu_with_metrics(kProvider, "{}"), at + "metricsUtilization.source: is empty"},
           {lnu_with_metrics(kProvider, "{source: KubernetesMetrics, metricsServer: true}"),
            at + "metricsUtilization: set source KubernetesMetrics or metricsServer, not both"},
           {lnu_with_metrics(kProvider, "{source: KubernetesMetrics, prometheus: {query: q}}"),
            at + "metricsUtilization.prometheus: is not allowed with source KubernetesMetrics"},
           {lnu_with_metrics(kProvider, "{source: KubernetesMetrics}", "{cpu: 30, nvidia.com/gpu: 30}",
                             "{cpu: 50, nvidia.com/gpu: 50}"),
            at + "thresholds.nvidia.com/gpu: is not in metrics.k8s.io"},
           {lnu_with_metrics("metricsCollector:\n  enabled: true\n" + kProvider, "{source: KubernetesMetrics}"),
            "x: metricsProviders[0].source: KubernetesMetrics is not allowed with metricsCollector.enabled"},
           {lnu_with_metrics(kProvider + "- source: KubernetesMetrics\n", "{source: KubernetesMetrics}"),
            "x: metricsProviders[1].source: 'KubernetesMetrics' is already configured"}}) {
    auto p = parse_policy_text(row.yaml, "x");
    ASSERT_FALSE(p.ok()) << row.yaml;
    EXPECT_NE(p.message().find(row.error), std::string::npos) << p.message();
  }
}

// lownodeutilization_test.go "without priorities", with metrics: n1 uses 3201m of 4 cores
// with 8 of 9 pods, n2 401m with 1 of 10; as upstream, four of the five evictable pods
// (401m each) go: n2 has room below 50 % before the fourth, which lands it at 50.1 %.
TEST(KubernetesMetrics, UpstreamRowWithoutPriorities) {
  std::vector<json> objs = {node("n1", {}, "4", "3000", "9"), node("n2", {}, "4", "3000", "10")};
  json n3 = node("n3", {}, "4", "3000", "10");
  n3["spec"]["unschedulable"] = true;
  objs.push_back(n3);
  json pods = json::array();
  for (int i = 1; i <= 5; ++i) {
    objs.push_back(pod("p" + std::to_string(i), "n1", {.cpu = "400m", .memory = "0"}));
    pods.push_back(pod_metrics("p" + std::to_string(i), "401m"));
  }
  for (int i = 6; i <= 8; ++i)
    objs.push_back(pod("p" + std::to_string(i), "n1", {.cpu = "400m", .memory = "0", .owner_kind = "DaemonSet"}));
  objs.push_back(pod("p9", "n2", {.cpu = "400m", .memory = "0"}));
  Cluster c = build(objs);
  json nodes = json::array({node_metrics("n1", "3201m", "0"), node_metrics("n2", "401m", "0"),
                            node_metrics("n3", "11m", "0")});
  Plan p = plan(c, load_from_kubernetes_metrics(nodes, pods, c, "m"), metrics_policy());
  EXPECT_EQ(class_of(p, "n1"), NodeClass::High);
  EXPECT_EQ(p.evictions.size(), 4u) << plan_to_json(p).dump();
  EXPECT_EQ(reason_of(p, "default/p6"), "daemonset");
  for (const auto& e : p.evictions) {
    EXPECT_EQ(e.plugin, "LowNodeUtilization");
    EXPECT_EQ(e.sized_by, "usage");
  }
}

// Actual usage, not requests: pods requesting little but using much make n1 over-used.
TEST(KubernetesMetrics, FreshUsageEvictsFromAnOverUsedNode) {
  std::vector<json> objs = {node("n1", {}, "4", "8Gi", "10"), node("n2", {}, "4", "8Gi", "10")};
  json pods = json::array();
  for (int i = 1; i <= 4; ++i) {
    objs.push_back(pod("p" + std::to_string(i), "n1", {.cpu = "100m", .memory = "0"}));
    pods.push_back(pod_metrics("p" + std::to_string(i), "900m"));
  }
  Cluster c = build(objs);
  json nodes = json::array({node_metrics("n1", "3600m", "1Gi"), node_metrics("n2", "200m", "1Gi")});
  Policy pol = metrics_policy();
  Plan fresh = plan(c, load_from_kubernetes_metrics(nodes, pods, c, "m"), pol);
  EXPECT_EQ(class_of(fresh, "n1"), NodeClass::High);   // 90 % used, 10 % requested
  EXPECT_EQ(class_of(fresh, "n2"), NodeClass::Low);
  EXPECT_FALSE(fresh.evictions.empty()) << plan_to_json(fresh).dump();
  for (const auto& e : fresh.evictions) EXPECT_DOUBLE_EQ(e.cpu, 900.0);   // sized by the PodMetrics

  // The same readings ten minutes old (the freshness limit is five): n1 is unknown, nothing moves.
  json old = json::array({node_metrics("n1", "3600m", "1Gi", "2026-11-23T09:50:00Z"),
                          node_metrics("n2", "200m", "1Gi", "2026-11-23T09:50:00Z")});
  Plan stale = plan(c, load_from_kubernetes_metrics(old, pods, c, "m"), pol);
  EXPECT_TRUE(stale.evictions.empty()) << plan_to_json(stale).dump();
  EXPECT_EQ(class_of(stale, "n1"), NodeClass::Unknown);
  for (const auto& n : stale.nodes) {
    if (n.name != "n1") continue;
    EXPECT_NE(n.why.find("stale: cpu measured 2026-11-23T09:50:00Z"), std::string::npos) << n.why;
  }
}

// `plan` reads NodeMetrics and PodMetrics from the scenario file (other kinds pass by).
TEST(KubernetesMetrics, PlanReadsTheScenarioFile) {
  testing::TempDir dir("kmetrics");
  json list = {{"apiVersion", "v1"}, {"kind", "List"},
               {"items", json::array({node("n1", {}, "4", "8Gi"), node_metrics("n1", "1", "2Gi"),
                                      pod("p1", "n1"), pod_metrics("p1", "300m")})}};
  testing::write_file(dir.file("s.json"), list.dump());
  Cluster c = build({node("n1", {}, "4", "8Gi")});
  Policy pol = metrics_policy();
  auto spec = load_spec_of(pol.profiles[0]);
  ASSERT_TRUE(spec.ok()) << spec.message();
  ASSERT_EQ(spec->kind, LoadSpec::Kind::KubernetesMetrics);
  spec->value = dir.file("s.json");
  auto r = fetch_load(*spec, pol.profiles[0].load_aware.metrics, c, t0());
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_DOUBLE_EQ(r->nodes.at("n1").cpu, 0.25);
  EXPECT_DOUBLE_EQ(*r->pods.at("default/p1").cpu_cores, 0.3);
  spec->value.clear();   // the API, without a client: an error, never requests in disguise
  EXPECT_FALSE(fetch_load(*spec, pol.profiles[0].load_aware.metrics, c, t0()).ok());
}

}  // namespace
}  // namespace weft::descheduler
