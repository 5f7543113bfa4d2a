// Load sources: the load file, the weft.dev/load annotation, Prometheus responses and
// their join, query templates; state round trips; carrying a plan out.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "descheduler/app/cluster_source.h"
#include "descheduler/app/cycle.h"
#include "descheduler/app/load_source.h"
#include "descheduler/app/prometheus_load.h"
#include "descheduler/core/load.h"
#include "descheduler/core/state.h"
#include "tests/descheduler/fixtures.h"
#include "tests/support/process.h"

namespace weft::descheduler {
namespace {

TEST(Load, File) {
  auto r = parse_load_file(R"({"nodes":[{"name":"n1","cpu":0.37,"memory":0.52,"at":"2026-11-23T10:00:00Z"},
                                         {"name":"n2","cpu":0.9,"memory":0.1}]})", "l.json");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_DOUBLE_EQ(r->nodes.at("n1").cpu, 0.37);
  EXPECT_TRUE(r->nodes.at("n1").cpu_at.has_value());
  EXPECT_EQ(r->nodes.at("n1").cpu_at, r->nodes.at("n1").memory_at);
  EXPECT_FALSE(r->nodes.at("n2").cpu_at.has_value());
  EXPECT_FALSE(r->nodes.at("n2").memory_at.has_value());
  for (const char* bad : {R"({"nodes":[{"name":"n1","cpu":1.7,"memory":0.5}]})",
                          R"({"nodes":[{"name":"n1","cpu":0.1,"memory":"high"}]})",
                          R"({"nodes":[{"name":"n1","cpu":0.1,"memory":0.5,"memory_at":"soon"}]})",
                          R"({"nodes":[{"name":"n1","cpu":0.1,"memory":0.5,"colour":1}]})",
                          R"({"nodes":[{"name":"n1","cpu":0.1,"memory":0.5,"at":"yesterday"}]})",
                          R"({"nodes":[{"name":"n1","cpu":0.1,"memory":0.5},{"name":"n1","cpu":0.1,"memory":0.5}]})",
                          R"({"nodez":[]})", "[1,"}) {
    auto e = parse_load_file(bad, "l.json");
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.message().find("l.json"), std::string::npos) << e.message();
  }
  // Per-reading times, and a reading that is missing: that node is unknown, the rest stand.
  auto m = parse_load_file(R"({"nodes":[{"name":"n1","cpu":0.3,"memory":0.4,"at":"2026-11-23T10:00:00Z",
                                          "memory_at":"2026-11-23T09:00:00Z"},
                                         {"name":"n2","cpu":0.3,"at":"2026-11-23T10:00:00Z"},
                                         {"name":"n3","memory":0.3,"cpu":null},
                                         {"name":"n4","cpu":0.3,"memory":0.4}]})", "l.json");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(format_rfc3339(*m->nodes.at("n1").cpu_at), "2026-11-23T10:00:00Z");
  EXPECT_EQ(format_rfc3339(*m->nodes.at("n1").memory_at), "2026-11-23T09:00:00Z");
  EXPECT_FALSE(m->nodes.count("n2"));
  EXPECT_NE(m->invalid.at("n2").find("no memory"), std::string::npos) << m->invalid.at("n2");
  EXPECT_NE(m->invalid.at("n3").find("no cpu"), std::string::npos) << m->invalid.at("n3");
  EXPECT_TRUE(m->nodes.count("n4"));
  EXPECT_FALSE(parse_load_file(R"({"nodes":[{"name":"n1","cpu":0.1},{"name":"n1","cpu":0.1,"memory":0.5}]})", "l.json").ok())
      << "a node listed twice is an error even when its first entry lacked a reading";
}

TEST(Load, Annotation) {
  // The shared codec (kube/load_annotation.h) decodes; a node whose annotation does not
  // decode is invalid (unknown), with the reason.
  auto via_node = [](const std::string& text) {
    test::json n = test::node("n");
    n["metadata"]["annotations"] = {{"weft.dev/load", text}};
    return load_from_annotations(test::build({n}));
  };
  LoadReport s = via_node(R"({"cpu":0.37,"memory":0.52,"window_s":60,"source":"ebpf","at":"2026-11-23T10:00:00Z"})");
  ASSERT_TRUE(s.nodes.count("n"));
  EXPECT_EQ(s.nodes.at("n").source, "ebpf");
  EXPECT_TRUE(via_node(R"({"cpu":0.37,"memory":0.52})").invalid.count("n"));   // no time: cannot be judged fresh
  EXPECT_TRUE(via_node("garbage").invalid.count("n"));
  LoadReport no_memory = via_node(R"({"cpu":0.37,"at":"2026-11-23T10:00:00Z"})");
  ASSERT_TRUE(no_memory.invalid.count("n"));
  EXPECT_NE(no_memory.invalid.at("n").find("memory"), std::string::npos) << no_memory.invalid.at("n");
  LoadReport split = via_node(
      R"({"cpu":0.37,"memory":0.52,"cpu_at":"2026-11-23T10:00:00Z","memory_at":"2026-11-23T09:00:00Z"})");
  ASSERT_TRUE(split.nodes.count("n")) << split.invalid["n"];
  EXPECT_EQ(format_rfc3339(*split.nodes.at("n").cpu_at), "2026-11-23T10:00:00Z");
  EXPECT_EQ(format_rfc3339(*split.nodes.at("n").memory_at), "2026-11-23T09:00:00Z");

  using test::json;
  json good = test::node("a");
  good["metadata"]["annotations"] = {{"weft.dev/load", R"({"cpu":0.9,"memory":0.2,"at":"2026-11-23T10:00:00Z"})"}};
  json bad = test::node("b");
  bad["metadata"]["annotations"] = {{"weft.dev/load", "{"}};
  Cluster c = test::build({good, bad, test::node("c")});
  LoadReport r = load_from_annotations(c);
  EXPECT_DOUBLE_EQ(r.nodes.at("a").cpu, 0.9);
  EXPECT_TRUE(r.invalid.count("b"));
  EXPECT_FALSE(r.nodes.count("c"));
}

TEST(Load, PrometheusVectorAndJoin) {
  auto cpu = parse_prometheus_vector(
      R"({"status":"success","data":{"resultType":"vector","result":[
         {"metric":{"node":"n1"},"value":[1700000000.5,"0.9"]},
         {"metric":{"node":"n2"},"value":[1700000000.5,"NaN"]},
         {"metric":{"node":"n3"},"value":[1700000000.5,"0.2"]},
         {"metric":{"other":"x"},"value":[1700000000.5,"0.2"]}]}})", {"node"});
  ASSERT_TRUE(cpu.ok()) << cpu.message();
  EXPECT_EQ(cpu->size(), 3u);
  auto mem = parse_prometheus_vector(
      R"({"status":"success","data":{"resultType":"vector","result":[
         {"metric":{"node":"n1"},"value":[1700000000.5,"0.4"]},{"metric":{"node":"n2"},"value":[1700000000.5,"0.4"]},
         {"metric":{"node":"n4"},"value":[1700000000.5,"0.4"]}]}})", {"node"});
  auto newest = [](const char* n1_time) {
    return parse_prometheus_vector(std::string(R"({"status":"success","data":{"resultType":"vector","result":[
         {"metric":{"node":"n1"},"value":[1700000000.5,")") + n1_time + R"("]},{"metric":{"node":"n2"},"value":[1700000000.5,"1699999990"]},
         {"metric":{"node":"n4"},"value":[1700000000.5,"1699999990"]}]}})", {"node"});
  };
  std::map<std::string, ResourceResults> in;
  in["cpu"] = {*cpu, *newest("1699999990")};
  in["memory"] = {*mem, *newest("1699999400")};
  LoadReport r = join_prometheus(in, "prometheus x");
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_DOUBLE_EQ(r.nodes.at("n1").cpu, 0.9);
  // The sample times, not the query time, decide freshness, each reading its own.
  EXPECT_EQ(format_rfc3339(*r.nodes.at("n1").cpu_at), "2023-11-14T22:13:10Z");
  EXPECT_EQ(format_rfc3339(*r.nodes.at("n1").memory_at), "2023-11-14T22:03:20Z");
  EXPECT_TRUE(r.invalid.count("n2"));   // NaN
  EXPECT_TRUE(r.invalid.count("n3"));   // no memory
  EXPECT_TRUE(r.invalid.count("n4"));   // no cpu
  // A node without a recent memory sample is unknown even with a recent cpu sample.
  in["memory"].newest.erase("n1");
  LoadReport r2 = join_prometheus(in, "prometheus x");
  EXPECT_FALSE(r2.nodes.count("n1"));
  EXPECT_EQ(r2.invalid.at("n1"), "no recent memory sample");
  auto err = parse_prometheus_vector(R"({"status":"error","errorType":"bad_data","error":"parse error"})", {"node"});
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.message().find("parse error"), std::string::npos);
  EXPECT_FALSE(parse_prometheus_vector(R"({"status":"success","data":{"resultType":"matrix","result":[]}})", {"node"}).ok());
}

// Found by fuzz/prometheus_fuzz.cc: a body of the wrong shape threw (nlohmann's value()
// on a non-object), and sample times beyond the clock's range overflowed.
TEST(Load, PrometheusResponseOfTheWrongShapeIsAnError) {
  for (const char* body : {"1699999990", "[]", "null", "20e2311", R"({"status":1})", R"({"status":"success","data":7})",
                           R"({"status":"success","data":{"resultType":"vector","result":{}}})",
                           R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"node":"n"},"value":[1e300,"0.5"]}]}})"})
    EXPECT_FALSE(parse_prometheus_vector(body, {"node"}).ok()) << body;
  auto odd = parse_prometheus_vector(
      R"({"status":"success","data":{"resultType":"vector","result":[3,{"metric":[]},{"metric":{"node":"n1"},"value":[1700000000,"0.5"]}]}})",
      {"node"});
  ASSERT_TRUE(odd.ok()) << odd.message();
  EXPECT_EQ(odd->size(), 1u);   // entries that are not series are skipped, as ones without the label are
  PromVector one{{"n1", PromPoint{0.5, {}}}}, far{{"n1", PromPoint{1e300, {}}}};
  std::map<std::string, ResourceResults> in;
  in["cpu"] = {one, far};
  in["memory"] = {one, one};
  LoadReport r = join_prometheus(in, "prometheus x");
  EXPECT_FALSE(r.nodes.count("n1"));
  EXPECT_EQ(r.invalid.at("n1"), "newest cpu sample time is not a time");
}

TEST(Load, QueryTemplates) {
  MetricsArgs m;
  m.window = Seconds(300);
  EXPECT_EQ(expand_query(m.resources.at("cpu").query, m.window, m.node_label),
            "avg by (node) (avg_over_time(weft_node_cpu_busy_ratio[5m]))");
  m.window = Seconds(90);
  m.node_label = "kubernetes_node";
  EXPECT_EQ(expand_query("max by ({label}) (x[{window}])", m.window, m.node_label), "max by (kubernetes_node) (x[90s])");
  EXPECT_EQ(promql_duration(Seconds(3600)), "1h");
  EXPECT_EQ(promql_duration(Seconds(1.5)), "1500ms");
}

TEST(Load, SpecsAndAnUnreachablePrometheus) {
  EXPECT_EQ(parse_load_spec("annotations")->kind, LoadSpec::Kind::Annotations);
  EXPECT_EQ(parse_load_spec("file=x.json")->value, "x.json");
  EXPECT_EQ(parse_load_spec("prometheus=http://p:9090")->value, "http://p:9090");
  EXPECT_FALSE(parse_load_spec("prometheus=p:9090").ok());
  EXPECT_FALSE(parse_load_spec("graphite=x").ok());
  Policy pol = test::seed_policy();
  pol.profiles[0].load_aware.metrics.address = "http://127.0.0.1:1";   // nothing listens on port 1
  auto spec = load_spec_of(pol.profiles[0]);
  ASSERT_TRUE(spec.ok());
  auto r = fetch_load(*spec, pol.profiles[0].load_aware.metrics, Cluster{}, test::t0());
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->source_error, "");
  EXPECT_NE(r->source_error.find("127.0.0.1:1"), std::string::npos) << r->source_error;
  EXPECT_FALSE(fetch_load(*parse_load_spec("file=/nonexistent.json"), pol.profiles[0].load_aware.metrics, Cluster{}, test::t0()).ok());
}

// Each profile's LoadAware or LowNodeUtilization reads its own source, one read per
// distinct source (the same Prometheus asked the same way is read once); --load replaces
// every profile's; LowNodeUtilization on requests reads nothing.
TEST(Load, OneReadPerDistinctSourceOfTheProfiles) {
  Policy pol;
  for (int i = 0; i < 4; ++i) pol.profiles.push_back(test::seed_policy().profiles[0]);
  for (int i : {0, 1}) pol.profiles[static_cast<size_t>(i)].load_aware.metrics.address = "http://prom:9090";
  pol.profiles[2].load_aware.metrics.address = "http://prom:9090";
  pol.profiles[2].load_aware.metrics.window = Seconds(900);   // asked another way: read apart
  pol.profiles[3].load_aware.requests_only = true;   // LowNodeUtilization on requests: nothing to read
  auto reads = load_reads(pol, std::nullopt);
  ASSERT_TRUE(reads.ok()) << reads.message();
  ASSERT_EQ(reads->size(), 2u);
  EXPECT_EQ((*reads)[0].profiles, (std::vector<size_t>{0, 1}));
  EXPECT_EQ((*reads)[1].profiles, (std::vector<size_t>{2}));
  EXPECT_EQ((*reads)[1].metrics.window, Seconds(900));
  auto flagged = load_reads(pol, *parse_load_spec("file=load.json"));
  ASSERT_TRUE(flagged.ok());
  ASSERT_EQ(flagged->size(), 1u);
  EXPECT_EQ((*flagged)[0].profiles, (std::vector<size_t>{0, 1, 2}));
  std::vector<LoadReport> loads(2);
  auto by_profile = loads_by_profile(*reads, loads, pol.profiles.size());
  EXPECT_EQ(by_profile, (std::vector<const LoadReport*>{&loads[0], &loads[0], &loads[1], nullptr}));
}

// A load read while the cluster is read runs at a lower priority than the threads reading
// the cluster (it takes the CPU they leave); one read after the cluster, on the caller's.
TEST(Load, ReadEarlyBesideTheClusterOnlyWhenACoreIsIdle) {
  const std::vector<LoadRead> reads = {{LoadSpec{LoadSpec::Kind::File, "early.json"}, {}, {0}},
                                       {LoadSpec{LoadSpec::Kind::Annotations, ""}, {}, {1}}};
  const Cluster none;
  std::vector<int> policies(2, -1);
  std::atomic<int> early_nice{-100};
  std::atomic<bool> early_read{false};
  LoadReader reader(reads, [&](const LoadRead& read, const Cluster&) -> Result<LoadReport> {
    const bool early = read.spec.kind == LoadSpec::Kind::File;
    policies[early ? 0 : 1] = ::sched_getscheduler(0);
    if (early) {
      early_nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
      early_read = true;
    }
    return LoadReport{};
  }, none);
  while (!early_read) std::this_thread::sleep_for(std::chrono::milliseconds(1));   // read before it is awaited
  auto loads = reader.finish(none);
  ASSERT_TRUE(loads.ok()) << loads.message();
  EXPECT_EQ(policies[1], ::sched_getscheduler(0));   // read on this thread, as it was
  // Early: only what the cluster's threads leave (idle where the process may raise it back
  // again; without that right the read runs at nice 5 instead).
  if (may_leave_idle_priority()) {
    EXPECT_EQ(policies[0], SCHED_IDLE);
  } else {
    EXPECT_EQ(policies[0], SCHED_OTHER);
    EXPECT_EQ(early_nice, 5);
  }
}

// Reads until its thread leaves idle priority (or 10 s pass) and tells its policy before and after.
struct ReadUntilAwaited {
  std::atomic<int> before{-1}, after{-1};
  std::atomic<bool> started{false};
  Result<LoadReport> operator()() {
    before = ::sched_getscheduler(0);
    started = true;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (::sched_getscheduler(0) == SCHED_IDLE && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    after = ::sched_getscheduler(0);
    return LoadReport{};
  }
  void wait_started() const {
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
};

// An idle-priority thread gets no CPU while anything else runs: once the cycle waits for
// the early read, it reads at normal priority (else a busy machine would starve the cycle).
TEST(Load, AnEarlyReadTheCycleWaitsForRunsAtNormalPriority) {
  const std::vector<LoadRead> reads = {{LoadSpec{LoadSpec::Kind::File, "early.json"}, {}, {0}}};
  const Cluster none;
  ReadUntilAwaited read;
  LoadReader reader(reads, [&](const LoadRead&, const Cluster&) { return read(); }, none);
  read.wait_started();
  auto loads = reader.finish(none);
  ASSERT_TRUE(loads.ok()) << loads.message();
  if (may_leave_idle_priority()) {
    EXPECT_EQ(read.before, SCHED_IDLE);
  }
  EXPECT_EQ(read.after, SCHED_OTHER);
}

// A reader dropped before its loads are asked for (a cycle that failed first) waits for
// its early reads at normal priority too.
TEST(Load, AReaderDroppedUnfinishedWaitsForItsEarlyReadsAtNormalPriority) {
  const std::vector<LoadRead> reads = {{LoadSpec{LoadSpec::Kind::File, "early.json"}, {}, {0}}};
  const Cluster none;
  ReadUntilAwaited read;
  const auto start = std::chrono::steady_clock::now();
  {
    LoadReader reader(reads, [&](const LoadRead&, const Cluster&) { return read(); }, none);
    read.wait_started();
  }
  EXPECT_EQ(read.after, SCHED_OTHER);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(State, RoundTripAndPrune) {
  DeschedulerState s;
  TimePoint now = test::t0();
  s.source_evicted_at["n1"] = now - std::chrono::minutes(1);
  s.workload_moved_at["ReplicaSet/default/web"] = now - std::chrono::minutes(30);
  s.arrivals["n2"] = Arrival{now - std::chrono::seconds(10), 4000, 2e12};
  auto back = DeschedulerState::from_json(s.to_json(), "cm");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->source_evicted_at.at("n1"), s.source_evicted_at.at("n1"));
  EXPECT_EQ(back->arrivals.at("n2").cpu, 4000);
  back->prune(now, Seconds(600));
  EXPECT_FALSE(back->workload_moved_at.count("ReplicaSet/default/web"));
  EXPECT_TRUE(back->source_evicted_at.count("n1"));
  EXPECT_FALSE(DeschedulerState::from_json(nlohmann::json{{"sources", {{"n1", "never"}}}}, "cm").ok());
}

TEST(Cycle, PdbRefusalIsASkipAndErrorsStopTheRun) {
  Plan plan;
  for (const char* n : {"a", "b", "c"}) plan.evictions.push_back({"default", n, "hot", "cool", "high-load: cpu", "w", 0, 0});
  int calls = 0;
  execute_evictions(plan, [&](const std::string&, const std::string& name) -> Result<kube::EvictionResult> {
    ++calls;
    if (name == "b") return kube::EvictionResult{kube::EvictionResult::Outcome::Blocked, "would violate budget web-pdb"};
    if (name == "c") return kube::EvictionResult{kube::EvictionResult::Outcome::NotFound, ""};
    return kube::EvictionResult{};
  });
  EXPECT_EQ(calls, 3);   // each tried once
  ASSERT_EQ(plan.evictions.size(), 1u);
  EXPECT_EQ(plan.evictions[0].name, "a");
  ASSERT_EQ(plan.skipped.size(), 2u);
  EXPECT_EQ(plan.skipped[0].reason, "pdb: would violate budget web-pdb");
  EXPECT_EQ(plan.skipped[1].reason, "pod-gone");

  Plan failing;
  for (int i = 0; i < 6; ++i) failing.evictions.push_back({"default", "p" + std::to_string(i), "hot", "cool", "r", "w", 0, 0});
  calls = 0;
  execute_evictions(failing, [&](const std::string&, const std::string&) -> Result<kube::EvictionResult> {
    ++calls;
    return make_error("POST ...: HTTP 500");
  });
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(failing.evictions.empty());
  EXPECT_EQ(failing.skipped.size(), 6u);
}

// Scenario files: a JSON List is decoded item by item, anything else the general way; both
// give the same cluster, and errors name the file and the item.
TEST(ClusterSource, JsonListYamlAndErrors) {
  testing::TempDir dir("descheduler-cluster-source");
  std::vector<test::json> items = {test::node("n1"), test::node("n2"), test::podgroup("g", 2)};
  for (int i = 0; i < 5; ++i) items.push_back(test::pod("p" + std::to_string(i), i % 2 ? "n1" : "n2", {.group = "g"}));
  items.push_back(test::pod("lost", "no-such-node"));
  testing::write_file(dir.file("list.json"), test::json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
  std::string yaml;
  for (const auto& o : items) yaml += "---\n" + o.dump() + "\n";   // JSON is YAML
  testing::write_file(dir.file("docs.yaml"), yaml);
  for (const char* file : {"list.json", "docs.yaml"}) {
    auto c = cluster_from_file(dir.file(file));
    ASSERT_TRUE(c.ok()) << file << ": " << c.message();
    EXPECT_EQ(c->nodes.size(), 2u) << file;
    EXPECT_EQ(c->pods.size(), 5u) << file << ": the pod on an unknown node is dropped";
    EXPECT_EQ(c->node("n1")->pods.size(), 2u) << file;
    EXPECT_EQ(c->running_in_group.at("default/g"), 5) << file;
    EXPECT_EQ(c->groups.at("default/g").min_member, 2) << file;
  }
  testing::write_file(dir.file("one.json"), test::node("solo").dump());
  auto one = cluster_from_file(dir.file("one.json"));
  ASSERT_TRUE(one.ok()) << one.message();
  EXPECT_EQ(one->nodes.size(), 1u);

  items[4]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots";
  testing::write_file(dir.file("bad.json"), test::json{{"kind", "List"}, {"items", items}}.dump());
  auto bad = cluster_from_file(dir.file("bad.json"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("bad.json: item 5 (Pod default/p1)"), std::string::npos) << bad.message();
  testing::write_file(dir.file("broken.json"), R"({"kind":"List","items":[)" + test::node("n1").dump() + ",{");
  auto broken = cluster_from_file(dir.file("broken.json"));
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.message().find("broken.json"), std::string::npos) << broken.message();
  EXPECT_FALSE(cluster_from_file(dir.file("missing.json")).ok());
}

}  // namespace
}  // namespace weft::descheduler
