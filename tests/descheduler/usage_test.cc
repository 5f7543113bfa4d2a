// Victims sized by their measured usage: load files with per-pod entries, the planner
// choosing the pod that burns over the pod that asks, the fallback to requests, the
// policy switch, and per-resource queries with their own freshness.
#include <gtest/gtest.h>

#include "descheduler/core/plan_output.h"
#include "tests/descheduler/fixtures.h"

namespace weft::descheduler::test {
namespace {

LoadReport with_pods(LoadReport l, const std::map<std::string, std::pair<double, double>>& pods, TimePoint at = t0()) {
  for (const auto& [key, v] : pods) l.pods[key] = PodUsage{v.first, v.second, at, at};
  return l;
}

// "asks" requests 6 cores and idles; "burns" requests 1 core and uses 7.
Cluster burner_cluster() {
  return build({node("hot"), node("cool"), pod("asks", "hot", {.cpu = "6", .memory = "8Gi"}),
                pod("burns", "hot", {.cpu = "1", .memory = "1Gi"}), pod("idle", "hot", {.cpu = "4"})});
}

TEST(PodUsage, VictimIsThePodThatBurnsNotThePodThatAsks) {
  LoadReport l = with_pods(load({{"hot", {0.95, 0.3}}, {"cool", {0.05, 0.05}}}),
                           {{"default/asks", {0.2, 2e9}}, {"default/burns", {7.0, 1e9}}, {"default/idle", {0.1, 1e9}}});
  Plan p = plan(burner_cluster(), l, seed_policy());
  // 95 % of 16 cores = 15.2; the burner's 7 cores take it to 8.2 (51 %), below 80 %.
  ASSERT_EQ(p.evictions.size(), 1u) << plan_to_json(p).dump();
  EXPECT_EQ(p.evictions[0].pod(), "default/burns");
  EXPECT_EQ(p.evictions[0].sized_by, "usage");
  EXPECT_DOUBLE_EQ(p.evictions[0].cpu, 7000);   // the target is projected with what moved
  auto j = plan_to_json(p);
  EXPECT_EQ(j["evictions"][0]["sized_by"], "usage");
  EXPECT_DOUBLE_EQ(j["evictions"][0]["cpu"].get<double>(), 7.0);
  // The policy switch turns it off: requests decide, and the pod that asks goes.
  Policy off = seed_policy();
  off.profiles[0].load_aware.metrics.pod_usage.enabled = false;
  Plan q = plan(burner_cluster(), l, off);
  ASSERT_FALSE(q.evictions.empty());
  EXPECT_EQ(q.evictions[0].pod(), "default/asks");
  EXPECT_EQ(q.evictions[0].sized_by, "requests");
}

TEST(PodUsage, StaleOrMissingReadingsFallBackToRequests) {
  // The burner's reading is ten minutes old (max age 5 m): it is sized by its 1-core request.
  LoadReport l = load({{"hot", {0.95, 0.3}}, {"cool", {0.05, 0.05}}});
  l.pods["default/burns"] = PodUsage{7.0, 1e9, t0() - std::chrono::minutes(10), t0()};
  l.pods["default/asks"] = PodUsage{std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  Plan p = plan(burner_cluster(), l, seed_policy());
  ASSERT_FALSE(p.evictions.empty());
  EXPECT_EQ(p.evictions[0].pod(), "default/asks");
  EXPECT_EQ(p.evictions[0].sized_by, "requests");
  // policy podUsage.maxAge widens it.
  Policy pol = seed_policy();
  pol.profiles[0].load_aware.metrics.pod_usage.max_age = Seconds(900);
  Plan q = plan(burner_cluster(), l, pol);
  ASSERT_FALSE(q.evictions.empty());
  EXPECT_EQ(q.evictions[0].pod(), "default/burns");
}

// A target is projected with the usage that moves: a pod burning 10 cores though it asks
// for 1 spends the low node's whole room (8 cores below 80 %), so a second such pod stays.
TEST(PodUsage, TargetsAreProjectedByUsage) {
  Cluster c = build({node("hot"), node("warmish"), pod("burns", "hot", {.cpu = "1"}), pod("burns-2", "hot", {.cpu = "1"})});
  LoadReport l = with_pods(load({{"hot", {0.95, 0.3}}, {"warmish", {0.30, 0.05}}}),
                           {{"default/burns", {10.0, 1e9}}, {"default/burns-2", {10.0, 1e9}}});
  Plan p = plan(c, l, seed_policy());
  ASSERT_EQ(p.evictions.size(), 1u) << plan_to_json(p).dump();
  EXPECT_DOUBLE_EQ(p.evictions[0].cpu, 10000.0);
  EXPECT_EQ(p.evictions[0].sized_by, "usage");
}

TEST(PodUsage, LoadFileWithPods) {
  auto r = parse_load_file(R"({"nodes":[{"name":"hot","cpu":0.95,"memory":0.3,"at":"2026-11-23T10:00:00Z"}],
    "pods":[{"namespace":"default","name":"burns","cpu":7,"memory":1073741824,"at":"2026-11-23T09:59:30Z"},
            {"namespace":"default","name":"mem-only","memory":5e8}]})",
                           "load.json");
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->pods.size(), 2u);
  EXPECT_DOUBLE_EQ(*r->pods.at("default/burns").cpu_cores, 7);
  EXPECT_DOUBLE_EQ(*r->pods.at("default/burns").memory_bytes, 1073741824);
  EXPECT_EQ(format_rfc3339(*r->pods.at("default/burns").cpu_at), "2026-11-23T09:59:30Z");
  EXPECT_FALSE(r->pods.at("default/mem-only").cpu_cores);
  EXPECT_EQ(r->nodes.size(), 1u);
  struct Bad { const char* text; const char* where; };
  for (Bad b : {Bad{R"({"nodes":[],"pods":[{"namespace":"a","name":"p","cpu":-1}]})", "pods[0] (a/p).cpu"},
                Bad{R"({"nodes":[],"pods":[{"name":"p","cpu":1}]})", "pods[0].namespace"},
                Bad{R"({"nodes":[],"pods":[{"namespace":"a","name":"p","cpux":1}]})", "pods[0] (a/p).cpux"},
                Bad{R"({"nodes":[],"pods":[{"namespace":"a","name":"p"},{"namespace":"a","name":"p"}]})", "pods[1] (a/p)"},
                Bad{R"({"nodes":[],"pods":{}})", "pods"},
                Bad{R"({"nodes":[],"podz":[]})", "podz"},
                Bad{R"({"nodes":[],"pods":[{"namespace":"a","name":"p"}],"pods":[]})", "pods: given twice"},
                Bad{R"({"nodes":null,"nodes":[]})", "nodes: given twice"},
                Bad{R"({"pods":[]})", "nodes"}}) {
    auto e = parse_load_file(b.text, "load.json");
    ASSERT_FALSE(e.ok()) << b.text;
    EXPECT_NE(e.message().find(std::string("load file load.json: ") + b.where), std::string::npos) << e.message();
  }
}

// Pod entries are read straight from their text when clean and as a tree otherwise (a key
// twice, escapes, nulls, a negative zero, a number past int64): both read them alike.
TEST(PodUsage, LoadFilePodEntriesReadAlikeWhateverTheirShape) {
  auto r = parse_load_file(R"({"nodes":[],"pods":[
      {"namespace":"a","name":"clean","cpu":0.5,"memory":2e9,"at":"2026-11-23T10:00:00Z","cpu_at":"2026-11-23T09:00:00Z"},
      {"namespace":"a","name":"twice","cpu":1,"cpu":2,"memory":3},
      {"namespace":"a","name":"escaped","cpu":null,"memory":4,"at":null},
      {"namespace":"a","name":"zero","cpu":-0.0,"memory":18446744073709551616,"memory_at":"2026-11-23T08:00:00Z"}]})",
                           "load.json");
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->pods.size(), 4u);
  const PodUsage& clean = r->pods.at("a/clean");
  EXPECT_DOUBLE_EQ(*clean.cpu_cores, 0.5);
  EXPECT_DOUBLE_EQ(*clean.memory_bytes, 2e9);
  EXPECT_EQ(format_rfc3339(*clean.cpu_at), "2026-11-23T09:00:00Z");
  EXPECT_EQ(format_rfc3339(*clean.memory_at), "2026-11-23T10:00:00Z");
  EXPECT_DOUBLE_EQ(*r->pods.at("a/twice").cpu_cores, 2);
  EXPECT_FALSE(r->pods.at("a/escaped").cpu_cores);
  EXPECT_FALSE(r->pods.at("a/escaped").cpu_at);
  EXPECT_DOUBLE_EQ(*r->pods.at("a/escaped").memory_bytes, 4);
  const PodUsage& zero = r->pods.at("a/zero");
  EXPECT_EQ(*zero.cpu_cores, 0);
  EXPECT_DOUBLE_EQ(*zero.memory_bytes, 18446744073709551616.0);
  EXPECT_FALSE(zero.cpu_at);
  EXPECT_EQ(format_rfc3339(*zero.memory_at), "2026-11-23T08:00:00Z");
  // A bad time after a clean one is still named.
  auto e = parse_load_file(R"({"nodes":[],"pods":[{"namespace":"a","name":"p","at":"2026-11-23T10:00:00Z"},
      {"namespace":"a","name":"q","at":"yesterday"}]})", "load.json");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("pods[1] (a/q).at"), std::string::npos) << e.message();
}

// A pod entry is read in one pass, its end found by its brackets before its text is
// checked: an entry whose brackets close but whose text is not JSON is still refused,
// naming the byte, and a good entry after it is not taken for it.
TEST(PodUsage, LoadFilePodEntryThatIsNotJsonIsRefused) {
  for (const char* entry : {R"({"namespace":"a","name":"p","cpu":01})", R"({"namespace":"a","name":"p" "cpu":1})",
                            R"({"namespace":"a","name":"p","cpu":1,})", "{\"namespace\":\"a\",\"name\":\"p\x01\"}",
                            R"({"namespace":"a","name":"p","cpu":tru})", R"({"namespace":"a","name":"p","cpu":1 x})",
                            R"({"namespace":"a","name":"p","at":"2026-11-23T10:00:00Z\q"})"}) {
    const std::string text = std::string(R"({"nodes":[],"pods":[)") + entry + R"(,{"namespace":"a","name":"q"}]})";
    auto e = parse_load_file(text, "load.json");
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_NE(e.message().find("load file load.json: "), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("byte"), std::string::npos) << e.message();
  }
}

TEST(PodUsage, PrometheusPerPodSeries) {
  auto vec = parse_prometheus_vector(R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"namespace":"team","pod":"burns","node":"hot"},"value":[1700000000,"7.5"]},
      {"metric":{"namespace":"team"},"value":[1700000000,"1"]}]}})",
                                     {"namespace", "pod"});
  ASSERT_TRUE(vec.ok()) << vec.message();
  ASSERT_EQ(vec->size(), 1u);
  EXPECT_DOUBLE_EQ(vec->at("team/burns").value, 7.5);
  PromVector newest = {{"team/burns", {1699999990, t0()}}};
  LoadReport r;
  join_pod_usage(*vec, {}, newest, {}, r);
  ASSERT_TRUE(r.pods.count("team/burns"));
  EXPECT_DOUBLE_EQ(*r.pods.at("team/burns").cpu_cores, 7.5);
  EXPECT_FALSE(r.pods.at("team/burns").memory_bytes);
  // Without its newest sample time a reading is not used.
  LoadReport r2;
  join_pod_usage(*vec, {}, {}, {}, r2);
  EXPECT_TRUE(r2.pods.empty());
}

// Each measured resource has its own freshness: a cpu reading older than its maxAge makes
// the node unknown even though the global max age would accept it.
TEST(PerResourceQueries, EachResourceHasItsOwnMaxAge) {
  Cluster c = build({node("hot"), node("cool"), pod("w", "hot", {.cpu = "2"})});
  LoadReport l = load({{"hot", {0.95, 0.3}}, {"cool", {0.05, 0.05}}}, t0() - std::chrono::seconds(90));
  Policy pol = seed_policy();
  EXPECT_FALSE(plan(c, l, pol).evictions.empty());
  pol.profiles[0].load_aware.metrics.resources["cpu"].max_age = Seconds(60);
  Plan p = plan(c, l, pol);
  EXPECT_TRUE(p.evictions.empty());
  for (const auto& n : p.nodes) {
    EXPECT_EQ(n.cls, NodeClass::Unknown) << n.name;
    EXPECT_NE(n.why.find("stale: cpu"), std::string::npos) << n.why;
  }
}

// A measured extended resource: the policy's query gives each node a ratio.
TEST(PerResourceQueries, MeasuredExtendedResource) {
  auto gpu_node = [](const std::string& name) {
    json n = node(name);
    n["status"]["allocatable"]["nvidia.com/gpu"] = "8";
    return n;
  };
  Cluster c = build({gpu_node("busy"), gpu_node("idle"),
                     pod("train", "busy", {.cpu = "1", .extra_requests = {{"nvidia.com/gpu", "2"}}})});
  Policy pol = seed_policy();
  pol.profiles[0].load_aware.thresholds["nvidia.com/gpu"] = 30;
  pol.profiles[0].load_aware.target_thresholds["nvidia.com/gpu"] = 60;
  pol.profiles[0].load_aware.metrics.resources["nvidia.com/gpu"] = {"avg by ({label}) (gpu_util)", "max by ({label}) (timestamp(gpu_util))",
                                                       std::nullopt, std::nullopt};
  LoadReport l = load({{"busy", {0.3, 0.3}}, {"idle", {0.1, 0.1}}});
  // Requests say 25 % (normal); the measurement says 90 % (high).
  l.nodes["busy"].extended["nvidia.com/gpu"] = {0.9, t0()};
  l.nodes["idle"].extended["nvidia.com/gpu"] = {0.0, t0()};
  Plan p = plan(c, l, pol);
  ASSERT_EQ(p.evictions.size(), 1u) << plan_to_json(p).dump();
  EXPECT_NE(p.evictions[0].reason.find("nvidia.com/gpu 90.0%"), std::string::npos);
  // Without the reading the node is unknown, never guessed.
  l.nodes["busy"].extended.clear();
  Plan q = plan(c, l, pol);
  EXPECT_TRUE(q.evictions.empty());
}

}  // namespace
}  // namespace weft::descheduler::test
