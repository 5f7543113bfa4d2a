// HighNodeUtilization: the Kubernetes descheduler's highnodeutilization_test.go as facts.
// Nodes of 4 (or 2) cores and 10 pods; every pod requests 400m cpu and no memory.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/HighNodeUtilization/high_node_utilization.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace hnu = plugins::high_node_utilization;

json small_pod(const std::string& name, const std::string& node_name) {
  return pod(name, node_name, {.cpu = "400m", .memory = "0"});
}

json worker(const std::string& name, const std::string& cpu = "4", bool unschedulable = false) {
  json n = node(name, {}, cpu, "3000", "10");
  if (unschedulable) n["spec"]["unschedulable"] = true;
  return n;
}

hnu::Args thresholds(double cpu, double pods) {
  hnu::Args a;
  a.thresholds = {{"cpu", cpu}, {"pods", pods}};
  return a;
}

std::vector<std::string> run(const hnu::Args& a, const std::vector<json>& objs, std::set<std::string> blocked = {}) {
  Cluster c = build(objs);
  TestHandle h(c, t0());
  h.recorder().blocked = std::move(blocked);
  hnu::Plugin plugin(a);
  return run_plugin(plugin, h);
}

using Keys = std::vector<std::string>;

TEST(HighNodeUtilization, NoNodeBelowThresholds) {
  std::vector<json> objs = {worker("n1"), worker("n2"), worker("n3")};
  for (int i = 1; i <= 9; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n" + std::to_string((i - 1) / 3 + 1)));
  EXPECT_EQ(run(thresholds(20, 20), objs), Keys{});
}

TEST(HighNodeUtilization, NoEvictablePods) {
  std::vector<json> objs = {worker("n1"), worker("n2"), worker("n3"), small_pod("p1", "n1"), small_pod("p2", "n1"),
                            small_pod("p3", "n2"), small_pod("p4", "n2")};
  for (int i = 5; i <= 8; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n3"));
  EXPECT_EQ(run(thresholds(40, 40), objs, {"default/p1", "default/p2", "default/p3", "default/p4"}), Keys{});
}

TEST(HighNodeUtilization, NoNodeToTakeThePods) {
  // n3 is above the thresholds but unschedulable: nowhere to go.
  std::vector<json> objs = {worker("n1"), worker("n2"), worker("n3", "4", true), small_pod("p1", "n1"),
                            small_pod("p2", "n2"), small_pod("p3", "n3"), small_pod("p4", "n3"), small_pod("p5", "n3")};
  EXPECT_EQ(run(thresholds(20, 20), objs), Keys{});
}

TEST(HighNodeUtilization, UnderutilizedNodesAreEmptied) {
  // n1 (p1 and a critical p2) and the unschedulable n3 (p7) are below 30 %; n2 takes them.
  std::vector<json> objs = {worker("n1"), worker("n2"), worker("n3", "4", true), small_pod("p1", "n1"),
                            small_pod("p2", "n1")};
  for (int i = 3; i <= 6; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n2"));
  objs.push_back(small_pod("p7", "n3"));
  Keys out = run(thresholds(30, 30), objs, {"default/p2"});
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, (Keys{"default/p1", "default/p7"}));
}

TEST(HighNodeUtilization, StopsWhenTheOtherNodesAreFull) {
  // 2-core nodes: n2 has 1600m of 2000m requested; one 400m pod fills it.
  std::vector<json> objs = {worker("n1", "2"), worker("n2", "2"), worker("n3", "2", true), small_pod("p1", "n1")};
  for (int i = 2; i <= 5; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n2"));
  objs.push_back(small_pod("p6", "n3"));
  EXPECT_EQ(run(thresholds(30, 30), objs).size(), 1u);
}

TEST(HighNodeUtilization, LowestPriorityFirst) {
  std::vector<json> objs = {worker("n1", "2"), worker("n2", "2"), pod("high", "n1", {.cpu = "400m", .memory = "0", .priority = 100}),
                            pod("low", "n1", {.cpu = "400m", .memory = "0", .priority = 1})};
  for (int i = 2; i <= 5; ++i) objs.push_back(small_pod("p" + std::to_string(i), "n2"));
  // n1 at 40 % is under 50 %; n2 at 80 % has room for one pod: the low-priority one goes.
  EXPECT_EQ(run(thresholds(50, 50), objs), Keys{"default/low"});
}

TEST(HighNodeUtilization, Validation) {
  auto parse = [](const char* text) { return hnu::parse_args(ctx(), json::parse(text), "args"); };
  EXPECT_FALSE(hnu::parse_args(ctx(), nullptr, "args").ok());
  EXPECT_FALSE(parse(R"({"thresholds": {"cpu": 120}})").ok());
  EXPECT_FALSE(parse(R"({"thresholds": {"cpu": 20}, "evictionModes": ["Everything"]})").ok());
  auto inc = parse(R"({"thresholds": {"cpu": 20}, "evictableNamespaces": {"include": ["a"]}})");
  ASSERT_FALSE(inc.ok());
  EXPECT_NE(inc.message().find("takes only exclude"), std::string::npos) << inc.message();
  auto ok = parse(R"({"thresholds": {"cpu": 20, "memory": 20, "pods": 20}, "evictionModes": ["OnlyThresholdingResources"]})");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_TRUE(ok->only_thresholding_resources);
}

}  // namespace
}  // namespace weft::descheduler::test
