// The node usage average of LowNodeUtilization's metricsUtilization, with the rows of
// upstream's metricscollector_test.go, and the collector that reads it between cycles.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "descheduler/app/node_metrics_collector.h"
#include "descheduler/core/node_usage_average.h"
#include "kube/quantity.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

json node_metrics(const std::string& name, const std::string& cpu, const std::string& memory,
                  const std::string& at = "2026-11-27T10:00:00Z") {
  return {{"metadata", {{"name", name}}}, {"timestamp", at}, {"window", "20s"},
          {"usage", {{"cpu", cpu}, {"memory", memory}}}};
}

json list(std::vector<json> items) { return {{"items", std::move(items)}}; }

// The average of `node` as (millicores, bytes).
std::pair<int64_t, int64_t> usage_of(const NodeUsageAverage& avg, const std::string& node) {
  const json averages = avg.node_metrics();
  for (const auto& obj : averages["items"])
    if (obj["metadata"]["name"] == node) {
      auto cpu = kube::parse_quantity_milli(obj["usage"]["cpu"]);
      auto memory = kube::parse_quantity_milli(obj["usage"]["memory"]);
      return {cpu ? *cpu : -1, memory ? *memory / 1000 : -1};
    }
  ADD_FAILURE() << node << " has no average";
  return {-1, -1};
}

// TestMetricsCollector: 1400m, then 500m (1310m), then 900m (1269m).
TEST(NodeUsageAverage, FoldsEachReadingInAsUpstream) {
  NodeUsageAverage avg;
  EXPECT_FALSE(avg.synced());
  avg.add(list({node_metrics("n1", "400m", "1714978816"), node_metrics("n2", "1400m", "1714978816"),
                node_metrics("n3", "300m", "1714978816")}));
  EXPECT_TRUE(avg.synced());
  EXPECT_EQ(usage_of(avg, "n2").first, 1400);
  avg.add(list({node_metrics("n1", "400m", "1714978816"), node_metrics("n2", "500m", "1714978816"),
                node_metrics("n3", "300m", "1714978816")}));
  EXPECT_EQ(usage_of(avg, "n2").first, 1310);
  avg.add(list({node_metrics("n1", "400m", "1714978816"), node_metrics("n2", "900m", "1714978816"),
                node_metrics("n3", "300m", "1714978816")}));
  EXPECT_EQ(usage_of(avg, "n2").first, 1269);
  EXPECT_EQ(usage_of(avg, "n1"), (std::pair<int64_t, int64_t>{400, 1714978816}));
}

// TestMetricsCollectorConvergence: a steady reading is reached within 5 units.
TEST(NodeUsageAverage, ConvergesToASteadyReading) {
  NodeUsageAverage avg;
  avg.add(list({node_metrics("n2", "1400m", "1714978816")}));
  bool converged = false;
  for (int i = 0; i < 300 && !converged; ++i) {
    avg.add(list({node_metrics("n2", "900m", "1614978816")}));
    auto [cpu, memory] = usage_of(avg, "n2");
    converged = std::abs(900 - cpu) < 6 && std::abs(1614978816 - memory) < 6;
  }
  EXPECT_TRUE(converged);
}

// A node missing from a reading, or whose object cannot be read, keeps its average; the
// average is dated by the newest reading folded in.
TEST(NodeUsageAverage, AMissingOrBadReadingKeepsTheAverage) {
  NodeUsageAverage avg;
  avg.add(list({node_metrics("a", "1", "1Gi", "2026-11-27T10:00:00Z"), node_metrics("b", "2", "2Gi")}));
  json bad = node_metrics("b", "lots", "2Gi", "2026-11-27T10:00:05Z");
  json undated = node_metrics("a", "3", "1Gi");
  undated.erase("timestamp");
  avg.add(list({bad, undated, json("not an object"), node_metrics("", "1", "1Gi")}));
  avg.add(json::array({node_metrics("a", "2", "1Gi", "2026-11-27T10:00:10Z")}));   // a bare array too
  EXPECT_EQ(usage_of(avg, "a"), (std::pair<int64_t, int64_t>{1100, 1073741824}));
  EXPECT_EQ(usage_of(avg, "b"), (std::pair<int64_t, int64_t>{2000, 2147483648}));
  const json averages = avg.node_metrics();
  for (const auto& obj : averages["items"])
    EXPECT_EQ(obj["timestamp"], obj["metadata"]["name"] == "a" ? "2026-11-27T10:00:10Z" : "2026-11-27T10:00:00Z");
}

// The collector reads at once and then every period on its own thread; a failed read
// keeps the averages; nothing is offered before a read succeeded.
TEST(NodeMetricsCollector, ReadsEveryPeriodAndKeepsTheAverageThroughAFailedRead) {
  std::atomic<int> reads{0};
  std::atomic<bool> fail{true};
  NodeMetricsCollector collector(
      [&]() -> Result<json> {
        ++reads;
        if (fail) return make_error("metrics.k8s.io: 503");
        return list({node_metrics("n", reads == 2 ? "1000m" : "2000m", "1Gi")});
      },
      20ms);
  EXPECT_FALSE(collector.collect());
  EXPECT_FALSE(collector.node_metrics());
  fail = false;
  ASSERT_TRUE(collector.collect());   // the second read: 1000m
  collector.start();
  for (int i = 0; i < 200 && reads < 6; ++i) std::this_thread::sleep_for(5ms);
  collector.stop();
  EXPECT_GE(reads.load(), 6);
  auto metrics = collector.node_metrics();
  ASSERT_TRUE(metrics);
  auto cpu = kube::parse_quantity_milli((*metrics)["items"][0]["usage"]["cpu"]);
  ASSERT_TRUE(cpu);
  EXPECT_GT(*cpu, 1000);   // 2000m readings folded in after the first, not taken as they are
  EXPECT_LT(*cpu, 2000);
}

}  // namespace
}  // namespace weft::descheduler
