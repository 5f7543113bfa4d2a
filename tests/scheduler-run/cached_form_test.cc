// The scheduler's informer cache keeps only the fields the core reads, as MessagePack:
// over every scenario of tests/scheduler and tests/scheduler-run, `simulate` on the
// cached form of the objects decides exactly what it decides on the objects as given,
// and the cached form is what the memory goal needs (under 2 KiB a pod, 4 KiB a node,
// for objects as a real API server returns them).
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/kube_client/objects.h"
#include "kube/scenario.h"
#include "scheduler/app/run_cache.h"
#include "scheduler/core/simulation.h"
#include "tests/support/process.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

json cached(json object) {
  const std::string kind = object.value("kind", ""), api_version = object.value("apiVersion", "");
  to_cached_form(object, api_version, kind);
  return json::from_msgpack(json::to_msgpack(object));
}

Config config_beside(const std::filesystem::path& scenario) {
  auto conf = scenario;
  conf.replace_extension(".conf");
  if (!std::filesystem::exists(conf)) return Config::defaults();
  auto c = parse_config(weft::testing::read_file(conf), conf.string());
  EXPECT_TRUE(c) << c.message();
  return c ? *c : Config::defaults();
}

TEST(CachedForm, EveryScenarioDecidesTheSameOnTheCachedObjects) {
  int scenarios = 0;
  for (const char* dir : {"tests/scheduler/scenarios", "tests/scheduler-run/scenarios"}) {
    for (const auto& entry : std::filesystem::directory_iterator(weft::testing::source_path(dir))) {
      if (entry.path().extension() != ".yaml") continue;
      auto objects = kube::load_objects_file(entry.path().string());
      ASSERT_TRUE(objects) << objects.message();
      auto compact = *objects;
      for (auto& so : compact) so.object = cached(so.object);
      const Config config = config_beside(entry.path());
      SimulationOptions options{.max_cycles = 30};
      options.now = Clock::from_time_t(1767225660);   // 2026-01-01T00:01:00Z: the scenarios' load reports are fresh
      auto full = simulate(*objects, config, options);
      auto small = simulate(compact, config, options);
      ASSERT_TRUE(full) << entry.path() << ": " << full.message();
      ASSERT_TRUE(small) << entry.path() << ": " << small.message();
      EXPECT_EQ(small->report, full->report) << entry.path();
      EXPECT_EQ(small->pending_reasons, full->pending_reasons) << entry.path();
      ++scenarios;
    }
  }
  EXPECT_GE(scenarios, 15);
}

// What volcano_semantics_test.cc proves on whole objects holds in `run`: the cache keeps
// preemptable and task-spec (label or annotation) and when the pod was bound.
TEST(CachedForm, KeepsEveryPodFieldTheCoreReads) {
  auto pod_of = [](json meta_extra, json status) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", "p"}, {"namespace", "ml"}, {"annotations", {{"scheduling.k8s.io/group-name", "g"}}}}},
                {"spec", {{"schedulerName", "weft"}, {"nodeName", "n1"},
                          {"containers", json::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}})}}},
                {"status", status}};
    pod["metadata"].update(meta_extra, true);
    return pod;
  };
  const json scheduled = {{"phase", "Running"},
                          {"startTime", "2026-01-01T00:00:05Z"},
                          {"conditions", json::array({{{"type", "PodScheduled"}, {"status", "True"},
                                                       {"lastTransitionTime", "2026-01-01T00:00:01Z"}}})}};
  for (const json& meta : {json{{"labels", {{"volcano.sh/preemptable", "false"}, {"volcano.sh/task-spec", "master"}}}},
                           json{{"annotations", {{"volcano.sh/preemptable", "false"}, {"volcano.sh/task-spec", "master"}}}}}) {
    const json pod = pod_of(meta, scheduled);
    SnapshotBuilder whole, small;
    ASSERT_TRUE(whole.add(pod, "whole").ok());
    ASSERT_TRUE(small.add(cached(pod), "cached").ok());
    const PodInfo a = whole.build().pods.at(0), b = small.build().pods.at(0);
    ASSERT_TRUE(a.preemptable.has_value()) << meta.dump();
    EXPECT_EQ(b.preemptable, a.preemptable) << meta.dump();
    EXPECT_EQ(a.task_role, "master");
    EXPECT_EQ(b.task_role, a.task_role) << meta.dump();
    ASSERT_TRUE(a.scheduled_at.has_value());
    EXPECT_EQ(b.scheduled_at, a.scheduled_at) << meta.dump();
  }
}

TEST(CachedForm, ApiServerSizedObjectsFitTheMemoryGoal) {
  for (int i = 0; i < 50; ++i) {
    json pod = bench::make_pod(i, 5000, 1000 + i), node = bench::make_node(i, 1000 + i);
    const size_t pod_bytes = json::to_msgpack(cached(pod)).size(), node_bytes = json::to_msgpack(cached(node)).size();
    // The projected form keeps every label, the whole affinity, spread, ports and gates (the pod contract); it is the bench baseline, the cache decodes from text.
    EXPECT_LT(pod_bytes, 1536u) << "pod " << i << " from " << pod.dump().size() << " bytes";
    EXPECT_LT(node_bytes, 2048u) << "node " << i << " from " << node.dump().size() << " bytes";
  }
}

}  // namespace
}  // namespace weft::scheduler
