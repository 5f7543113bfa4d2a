#include "tools/kube-lite/disruption.h"

#include <gtest/gtest.h>

namespace weft::kube_lite {
namespace {

using nlohmann::json;

json pod(const std::string& app, bool running, bool ready) {
  json p = {{"metadata", {{"name", app}, {"labels", {{"app", app}}}}}, {"status", {{"phase", running ? "Running" : "Pending"}}}};
  if (ready) p["status"]["conditions"] = {{{"type", "Ready"}, {"status", "True"}}};
  return p;
}

json budget(const char* field, json value) {
  return {{"metadata", {{"name", "b"}}}, {"spec", {{field, value}, {"selector", {{"matchLabels", {{"app", "db"}}}}}}}};
}

TEST(KubeLiteDisruption, ScaledValuesRoundPercentagesUp) {
  EXPECT_EQ(*scaled_value(3, 10), 3);
  EXPECT_EQ(*scaled_value("3", 10), 3);
  EXPECT_EQ(*scaled_value("25%", 10), 3);
  EXPECT_EQ(*scaled_value("0%", 10), 0);
  EXPECT_FALSE(scaled_value("x%", 10));
  EXPECT_FALSE(scaled_value(json::array(), 10));
}

TEST(KubeLiteDisruption, HealthyMeansRunningReadyNotDeleting) {
  EXPECT_TRUE(pod_healthy(pod("db", true, true)));
  EXPECT_FALSE(pod_healthy(pod("db", true, false)));
  EXPECT_FALSE(pod_healthy(pod("db", false, true)));
  json deleting = pod("db", true, true);
  deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  EXPECT_FALSE(pod_healthy(deleting));
}

TEST(KubeLiteDisruption, MinAvailableAndMaxUnavailable) {
  std::vector<json> pods = {pod("db", true, true), pod("db", true, true), pod("db", true, false), pod("web", true, true)};
  auto min = compute_disruption(budget("minAvailable", 1), pods);
  ASSERT_TRUE(min) << min.message();
  EXPECT_EQ(min->expected_pods, 3);
  EXPECT_EQ(min->current_healthy, 2);
  EXPECT_EQ(min->desired_healthy, 1);
  EXPECT_EQ(min->disruptions_allowed, 1);
  auto max = compute_disruption(budget("maxUnavailable", "50%"), pods);
  ASSERT_TRUE(max);
  EXPECT_EQ(max->desired_healthy, 1);   // 3 - ceil(1.5)
  EXPECT_EQ(max->disruptions_allowed, 1);
  auto none = compute_disruption(budget("minAvailable", "100%"), pods);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->disruptions_allowed, 0);
  EXPECT_FALSE(compute_disruption(budget("minAvailable", "lots"), pods));
  json all = {{"metadata", {{"name", "all"}}}, {"spec", {{"maxUnavailable", 0}, {"selector", json::object()}}}};
  auto everything = compute_disruption(all, pods);
  ASSERT_TRUE(everything);
  EXPECT_EQ(everything->expected_pods, 4);  // policy/v1: an empty selector selects every pod
}

}  // namespace
}  // namespace weft::kube_lite
