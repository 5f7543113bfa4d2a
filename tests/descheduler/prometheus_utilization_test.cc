// LowNodeUtilization's metricsUtilization {source: Prometheus}: upstream's validation, the
// rows of its TestLowNodeUtilizationWithPrometheusMetrics as facts (n1 4 cores/9 pods, n2
// and n3 10 pods; p1..p5 evictable on n1, p6..p8 protected, p9 on n2), weft's freshness rule
// (a stale or missing node is unknown), and the queries sent to a local Prometheus.
#include <gtest/gtest.h>

#include <mutex>

#include "descheduler/app/load_source.h"
#include "descheduler/app/prometheus_load.h"
#include "descheduler/core/plan_output.h"
#include "descheduler/core/prometheus_utilization.h"
#include "tests/descheduler/fake_prometheus.h"
#include "tests/descheduler/upstream_fixtures.h"

namespace weft::descheduler::test {
namespace {

const std::string kQuery = "instance:node_cpu:rate:sum";

std::string prom_policy(const std::string& args, const std::string& utilization,
                        const std::string& url = "http://prometheus.monitoring:9090") {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nmetricsProviders:\n- source: Prometheus\n"
         "  prometheus: {url: '" + url + "'}\nprofiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n"
         "    args: {nodeFit: true}\n  - name: LowNodeUtilization\n    args:\n      " + args +
         "\n      metricsUtilization: " + utilization + "\n  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n";
}

const std::string kMetric = "thresholds: {MetricResource: 30}\n      targetThresholds: {MetricResource: 50}";
const std::string kBySelector = "{source: Prometheus, prometheus: {query: '" + kQuery + "'}}";

Policy policy_of(const std::string& args, const std::string& url = "http://prometheus.monitoring:9090") {
  auto p = parse_policy_text(prom_policy(args, kBySelector, url), "lnu.yaml");
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? *p : Policy{};
}

TEST(PrometheusUtilization, PolicyAsUpstream) {
  Policy p = policy_of(kMetric);
  const LoadAwareArgs& la = p.profiles[0].load_aware;
  EXPECT_TRUE(la.metric_resource);
  EXPECT_FALSE(la.requests_only);
  EXPECT_EQ(la.metrics.type, MetricsType::Prometheus);
  EXPECT_EQ(la.metrics.address, "http://prometheus.monitoring:9090");   // metricsProviders' url
  EXPECT_EQ(la.metrics.node_label, "instance");
  ASSERT_EQ(la.metrics.resources.size(), 1u);
  const ResourceQuery& q = la.metrics.resources.at(kMetricResource);
  EXPECT_EQ(q.query, kQuery);
  EXPECT_EQ(q.freshness_query, "max by (instance) (timestamp(instance:node_cpu:rate:sum))");
  EXPECT_EQ(load_plugin_name(p.profiles[0].load_aware), std::string("LowNodeUtilization"));

  const std::string at = "x: profiles[0].pluginConfig[1].args.";
  struct Row { std::string args, utilization, error; };
  for (const Row& row : std::vector<Row>{
           {kMetric, "{source: Prometheus}", at + "metricsUtilization.prometheus.query: is required"},
           {kMetric, "{source: Prometheus, prometheus: {query: ''}}", at + "metricsUtilization.prometheus.query: is required"},
           {"thresholds: {cpu: 30}\n      targetThresholds: {cpu: 50}", kBySelector,
            at + "thresholds: must name the single resource MetricResource when the source is Prometheus (as upstream), got [cpu]"},
           {"thresholds: {MetricResource: 30, cpu: 30}\n      targetThresholds: {MetricResource: 50, cpu: 50}", kBySelector,
            at + "thresholds: must name the single resource MetricResource"},
           {kMetric, "{source: Prometheus, prometheus: {query: 'avg by (instance) (rate(node_cpu_seconds_total[5m]))'}}",
            at + "metricsUtilization.prometheus.freshnessQuery: is required when the query is not a plain series selector"},
           {kMetric, "{source: Prometheus, prometheus: {query: q, interval: 5m}}",
            at + "metricsUtilization.prometheus.interval: unknown field"},
           {kMetric, "{source: KubernetesMetrics, prometheus: {query: q}}",
            at + "metricsUtilization.prometheus: is not allowed with source KubernetesMetrics"}}) {
    auto r = parse_policy_text(prom_policy(row.args, row.utilization), "x");
    ASSERT_FALSE(r.ok()) << row.utilization;
    EXPECT_NE(r.message().find(row.error), std::string::npos) << r.message();
  }
  // Any query, with weft's freshnessQuery beside it.
  auto given = parse_policy_text(
      prom_policy(kMetric, "{source: Prometheus, prometheus: {query: 'avg by (instance) (x)', freshnessQuery: "
                           "'max by (instance) (timestamp(x))'}}"),
      "x");
  ASSERT_TRUE(given.ok()) << given.message();
  EXPECT_EQ(given->profiles[0].load_aware.metrics.resources.at(kMetricResource).freshness_query, "max by (instance) (timestamp(x))");
}

TEST(PrometheusUtilization, SeriesSelectors) {
  for (const char* q : {"instance:node_cpu:rate:sum", " up ", R"(node_load1{job="node", mode=~"a|b"})", R"({__name__="x"})",
                        R"(x{a="}{("})"})
    EXPECT_TRUE(is_series_selector(q)) << q;
  for (const char* q : {"", "rate(x[5m])", "x + y", "x[5m]", "x offset 5m", "sum(x)", "x{a=\"b\"", "1"})
    EXPECT_FALSE(is_series_selector(q)) << q;
}

std::vector<json> prometheus_cluster() {
  std::vector<json> objs = {unode("n1", "9"), unode("n2", "10"), unode("n3", "10")};
  for (int i = 1; i <= 5; ++i) objs.push_back(upod("p" + std::to_string(i), "n1"));
  objs.push_back(upod("p6", "n1", Kind::DS));
  objs.push_back(upod("p7", "n1", Kind::Mirror));
  objs.push_back(upod("p8", "n1", Kind::Critical));
  objs.push_back(upod("p9", "n2"));
  return objs;
}

LoadReport metric_load(const std::map<std::string, double>& values, TimePoint at = t0()) {
  LoadReport r;
  r.source_name = "test";
  for (const auto& [node, v] : values) r.nodes[node].extended[kMetricResource] = {v, at};
  return r;
}

const std::map<std::string, double> kSamples = {{"n1", 0.5695757575757561}, {"n2", 0.4245454545454522},
                                                 {"n3", 0.20381818181818104}};

// The query says nothing of a pod's share: one pod leaves n1 (56 % > 50 %, to n3 at
// 20 %), or up to evictionLimits.node.
TEST(PrometheusUtilization, UpstreamRows) {
  SCOPED_TRACE("upstream: with instance:node_cpu:rate:sum query");
  SCOPED_TRACE("upstream: with instance:node_cpu:rate:sum query with more evictions");
  SCOPED_TRACE("upstream: with instance:node_cpu:rate:sum query with deviation");
  SCOPED_TRACE("upstream: with instance:node_cpu:rate:sum query and deviation thresholds");
  Cluster c = build(prometheus_cluster());
  Plan one = plan(c, metric_load(kSamples), policy_of(kMetric));
  EXPECT_EQ(class_of(one, "n1"), NodeClass::High);
  EXPECT_EQ(class_of(one, "n2"), NodeClass::Normal);
  EXPECT_EQ(class_of(one, "n3"), NodeClass::Low);
  ASSERT_EQ(one.evictions.size(), 1u) << plan_to_json(one).dump();
  EXPECT_EQ(one.evictions[0].to, "n3");
  EXPECT_NE(one.evictions[0].reason.find("MetricResource 56.0% > 50.0%"), std::string::npos) << one.evictions[0].reason;
  EXPECT_EQ(plan(c, metric_load(kSamples), policy_of(kMetric + "\n      evictionLimits: {node: 3}")).evictions.size(), 3u);
  // The policy's maxNoOfPodsToEvictPerNode is not the plugin's evictionLimits.node: still one pod.
  std::string text = prom_policy(kMetric, kBySelector);
  text.insert(text.find("kind: DeschedulerPolicy\n") + 24, "maxNoOfPodsToEvictPerNode: 3\n");
  auto capped = parse_policy_text(text, "lnu.yaml");
  ASSERT_TRUE(capped.ok()) << capped.message();
  EXPECT_EQ(plan(c, metric_load(kSamples), *capped).evictions.size(), 1u);
  // Deviation 5/5: mean 39.3 %, n1 above 44.3 %, n3 at or below 34.3 %; limit 2.
  const std::string deviation = "useDeviationThresholds: true\n      thresholds: {MetricResource: 5}\n"
                                "      targetThresholds: {MetricResource: 5}\n      evictionLimits: {node: 2}";
  EXPECT_EQ(plan(c, metric_load(kSamples), policy_of(deviation)).evictions.size(), 2u);
  const std::string deviation10 = "useDeviationThresholds: true\n      thresholds: {MetricResource: 10}\n"
                                  "      targetThresholds: {MetricResource: 10}";
  EXPECT_EQ(plan(c, metric_load({{"n1", 1}, {"n2", 0.5}, {"n3", 0}}), policy_of(deviation10)).evictions.size(), 1u);
}

// Upstream fails the cycle on a node missing from the result and never dates a sample;
// weft calls such a node unknown, and a node whose newest sample is too old too.
TEST(PrometheusUtilization, StaleOrMissingNodesAreUnknown) {
  Cluster c = build(prometheus_cluster());
  LoadReport old = metric_load(kSamples, t0() - std::chrono::minutes(10));
  Plan stale = plan(c, old, policy_of(kMetric));
  EXPECT_TRUE(stale.evictions.empty());
  EXPECT_EQ(class_of(stale, "n1"), NodeClass::Unknown);
  LoadReport partial = metric_load({{"n1", 0.57}, {"n2", 0.42}});
  Plan missing = plan(c, partial, policy_of(kMetric));
  EXPECT_TRUE(missing.evictions.empty()) << plan_to_json(missing).dump();
  EXPECT_EQ(class_of(missing, "n3"), NodeClass::Unknown);
}

// The queries a cycle sends: the policy's query as written and its newest sample time per
// instance; the answer is joined to nodes by `instance`.
TEST(PrometheusUtilization, QueriesALocalPrometheus) {
  std::mutex mu;
  std::vector<std::string> asked;
  double sampled_at = 1700000000;
  FakePrometheus<> prom([&](const httplib::Request& req, httplib::Response& res) {
    std::string q = req.get_param_value("query");
    {
      std::lock_guard<std::mutex> lock(mu);
      asked.push_back(q);
    }
    const bool newest = q.rfind("max by (instance) (timestamp(", 0) == 0;
    std::vector<std::pair<std::string, double>> series;
    for (const auto& [node, v] : kSamples)
      series.push_back({R"({"instance":")" + node + R"("})", newest ? sampled_at : v});
    res.set_content(prom_vector(series), "application/json");
  });
  Policy pol = policy_of(kMetric, prom.url());
  auto spec = load_spec_of(pol.profiles[0]);
  ASSERT_TRUE(spec.ok()) << spec.message();
  Cluster c = build(prometheus_cluster());
  const TimePoint now = TimePoint(std::chrono::seconds(1700000030));
  auto load = fetch_load(*spec, pol.profiles[0].load_aware.metrics, c, now);
  ASSERT_TRUE(load.ok()) << load.message();
  EXPECT_EQ(asked, (std::vector<std::string>{kQuery, "max by (instance) (timestamp(" + kQuery + "))"}));
  ASSERT_EQ(load->nodes.count("n1"), 1u) << load->source_error;
  EXPECT_DOUBLE_EQ(load->nodes.at("n1").extended.at(kMetricResource).value, kSamples.at("n1"));
  auto p = make_plan(c, *load, pol, {}, PlanOptions{now, Seconds(300), Seconds(600)});
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->evictions.size(), 1u) << plan_to_json(*p).dump();
  // The recording rule stopped ten minutes ago: every node is unknown.
  sampled_at = 1700000030 - 600;
  auto stale = fetch_load(*spec, pol.profiles[0].load_aware.metrics, c, now);
  ASSERT_TRUE(stale.ok());
  auto q = make_plan(c, *stale, pol, {}, PlanOptions{now, Seconds(300), Seconds(600)});
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->evictions.empty());
  EXPECT_EQ(class_counts(*q).begin()->second[NodeClass::Unknown], 3);
}

}  // namespace
}  // namespace weft::descheduler::test
