// The descheduler's metrics: the Kubernetes descheduler's series under its names and
// labels (metrics/metrics.go, evictions.go), beside weft's own.
#include <gtest/gtest.h>

#include "descheduler/app/metrics.h"

namespace weft::descheduler {
namespace {

bool has(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

Plan carried_out() {
  Plan plan;
  plan.evictions.push_back(
      {.ns = "ml", .name = "a", .from = "n1", .to = "n2", .plugin = "RemoveDuplicates", .profile = "clean"});
  plan.evictions.push_back({.ns = "ml", .name = "b", .from = "n1", .plugin = "RemoveDuplicates", .profile = "clean"});
  plan.skipped = {{"ml", "c", "n1", "limit-per-node", "PodLifeTime", "clean"},
                  {"ml", "d", "n3", "limit-total", "LowNodeUtilization", "balance"},
                  {"web", "e", "n3", "limit-per-namespace", "LowNodeUtilization", "balance"},
                  {"ml", "f", "n4", "pdb: Cannot evict pod", "LowNodeUtilization", "balance"},
                  {"ml", "g", "n4", "pod-gone", "LowNodeUtilization", "balance"},
                  {"ml", "h", "n4", "priority-threshold", "LowNodeUtilization", "balance"}};
  plan.plugin_runs = {{"clean", "RemoveDuplicates", 0.02}, {"balance", "LowNodeUtilization", 0.3}};
  return plan;
}

std::string label(const std::string& result, const std::string& strategy, const std::string& profile,
                  const std::string& ns, const std::string& node) {
  return "{namespace=\"" + ns + "\",node=\"" + node + "\",profile=\"" + profile + "\",result=\"" + result +
         "\",strategy=\"" + strategy + "\"}";
}

TEST(DeschedulerMetrics, PodsEvictedTotalAsUpstreamCountsThem) {
  DeschedulerMetrics metrics;
  metrics.observe(carried_out(), false, 1.5);
  const std::string t = metrics.text();
  {
    const std::string n = "descheduler_pods_evicted_total";
    EXPECT_TRUE(has(t, n + label("success", "RemoveDuplicates", "clean", "ml", "n1") + " 2")) << t;
    // The limits in upstream's error words; a budget's or the API's refusal is "error".
    EXPECT_TRUE(has(t, n + label("maximum number of evicted pods per node reached", "PodLifeTime", "clean", "ml", "n1") +
                           " 1"))
        << t;
    EXPECT_TRUE(has(t, n +
                           label("maximum number of evicted pods per a descheduling cycle reached", "LowNodeUtilization",
                                 "balance", "ml", "n3") +
                           " 1"))
        << t;
    EXPECT_TRUE(has(t, n +
                           label("maximum number of evicted pods per namespace reached", "LowNodeUtilization",
                                 "balance", "web", "n3") +
                           " 1"))
        << t;
    EXPECT_TRUE(has(t, n + label("error", "LowNodeUtilization", "balance", "ml", "n4") + " 2")) << t;
  }
  // Not under the name deprecated since 0.34 (no _total: promtool refuses such a counter).
  EXPECT_EQ(t.find("descheduler_pods_evicted{"), std::string::npos) << t;
  // A candidate a filter kept was never an eviction: not counted (five series above only).
  int series = 0;
  for (size_t at = t.find("\ndescheduler_pods_evicted_total{"); at != std::string::npos;
       at = t.find("\ndescheduler_pods_evicted_total{", at + 1))
    ++series;
  EXPECT_EQ(series, 5) << t;
}

TEST(DeschedulerMetrics, LoopAndStrategyDurationsAsUpstream) {
  DeschedulerMetrics metrics;
  metrics.observe(carried_out(), true, 1.5);
  metrics.cycle_failed(0.2);
  const std::string t = metrics.text();
  for (const char* name : {"descheduler_loop_duration_seconds"}) {
    EXPECT_TRUE(has(t, std::string(name) + "_count 2")) << t;
    EXPECT_TRUE(has(t, std::string(name) + "_bucket{le=\"0.25\"} 1")) << t;   // upstream's buckets
    EXPECT_TRUE(has(t, std::string(name) + "_bucket{le=\"500\"} 2")) << t;
  }
  for (const char* name : {"descheduler_strategy_duration_seconds"}) {
    EXPECT_TRUE(has(t, std::string(name) + "_count{profile=\"balance\",strategy=\"LowNodeUtilization\"} 1")) << t;
    EXPECT_TRUE(has(t, std::string(name) + "_bucket{profile=\"clean\",strategy=\"RemoveDuplicates\",le=\"0.025\"} 1"))
        << t;
  }
  // A dry run's evictions are successes there too (weft's own counter says dry_run).
  EXPECT_TRUE(has(t, "descheduler_pods_evicted_total" + label("success", "RemoveDuplicates", "clean", "ml", "n1") +
                         " 2"))
      << t;
}

TEST(DeschedulerMetrics, NodesByClassPerClassifyingPlugin) {
  DeschedulerMetrics metrics;
  Plan plan;
  plan.nodes = {{.name = "a", .cls = NodeClass::High, .by = {"cpu", "LowNodeUtilization"}},
                {.name = "b", .cls = NodeClass::Low, .by = {"cpu", "LowNodeUtilization"}},
                {.name = "a", .cls = NodeClass::Low, .by = {"memory", "LowNodeUtilization"}},
                {.name = "b", .cls = NodeClass::Low, .by = {"memory", "LowNodeUtilization"}}};
  metrics.observe(plan, true, 0.1);
  std::string t = metrics.text();
  EXPECT_TRUE(has(t, "weft_descheduler_nodes{class=\"high\",plugin=\"LowNodeUtilization\",profile=\"cpu\"} 1")) << t;
  EXPECT_TRUE(has(t, "weft_descheduler_nodes{class=\"low\",plugin=\"LowNodeUtilization\",profile=\"memory\"} 2")) << t;
  // The next cycle classifies with one profile only: the other's series read 0.
  plan.nodes.resize(2);
  metrics.observe(plan, true, 0.1);
  t = metrics.text();
  EXPECT_TRUE(has(t, "weft_descheduler_nodes{class=\"low\",plugin=\"LowNodeUtilization\",profile=\"memory\"} 0")) << t;
  EXPECT_TRUE(has(t, "weft_descheduler_nodes{class=\"low\",plugin=\"LowNodeUtilization\",profile=\"cpu\"} 1")) << t;
}

// A verdict names its profile and plugin apart: a profile's name holding '/' reaches the
// gauge's labels as written, with no split of a joined text.
TEST(DeschedulerMetrics, NodesByClassLabelsAreTheVerdictsProfileAndPlugin) {
  DeschedulerMetrics metrics;
  Plan plan;
  plan.nodes = {{.name = "a", .cls = NodeClass::High, .by = {"team/gpu", "LowNodeUtilization"}},
                {.name = "b", .cls = NodeClass::Low, .by = {"", "LoadAware"}}};
  metrics.observe(plan, true, 0.1);
  const std::string t = metrics.text();
  EXPECT_TRUE(has(t, "weft_descheduler_nodes{class=\"high\",plugin=\"LowNodeUtilization\",profile=\"team/gpu\"} 1")) << t;
  EXPECT_TRUE(has(t, "weft_descheduler_nodes{class=\"low\",plugin=\"LoadAware\",profile=\"\"} 1")) << t;
}

// Upstream's descheduler_build_info: a gauge of constant 1 whose labels are the build facts
// (Go version, app and descheduler version, git branch and sha), served from the start.
TEST(DeschedulerMetrics, BuildInfoAsUpstreamServesIt) {
  DeschedulerMetrics metrics;
  const std::string t = metrics.text();
  EXPECT_TRUE(has(t, "# TYPE descheduler_build_info gauge")) << t;
  EXPECT_TRUE(has(t, "# HELP descheduler_build_info [ALPHA] Build info about descheduler, including Go version, "
                     "Descheduler version, Git SHA, Git branch"))
      << t;
  const std::string version = WEFT_VERSION;
  EXPECT_FALSE(version.empty());
  EXPECT_TRUE(has(t, "descheduler_build_info{AppVersion=\"" + version + "\",DeschedulerVersion=\"" + version +
                         "\",GitBranch=\"\",GitSha1=\"\",GoVersion=\"\"} 1"))
      << t;
  // Upstream's other series carry its metrics library's stability prefix too.
  EXPECT_TRUE(has(t, "# HELP descheduler_loop_duration_seconds [ALPHA] Time taken to complete a full descheduling cycle"))
      << t;
  // The names deprecated since 0.34 are not served (a counter without _total is not valid).
  for (const char* old : {"descheduler_pods_evicted{", "descheduler_descheduler_loop_duration_seconds",
                          "descheduler_descheduler_strategy_duration_seconds"})
    EXPECT_EQ(t.find(old), std::string::npos) << old;
}

}  // namespace
}  // namespace weft::descheduler
