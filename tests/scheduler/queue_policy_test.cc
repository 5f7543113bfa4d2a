// Queue and job policy: proportion's spec.deserved and guarantee and its tolerations and
// nodeSelector arguments, drf order inside a queue, conformance protecting system pods,
// preempt inside a queue, reclaimable: false.
#include <gtest/gtest.h>

#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler::testing {
namespace {

using nlohmann::json;

double cpu(const json& queue, const char* what) { return queue[what]["cpu"].get<double>(); }

Config config_of(const std::string& text) {
  auto c = parse_config(text, "test.conf");
  EXPECT_TRUE(c.ok()) << c.message();
  return c.ok() ? *c : Config::defaults();
}

void pending_pods(ScenarioBuilder& s, const std::string& group, const std::string& queue, int count, int cpu_each) {
  s.group(group, queue, 1, 0);
  for (int i = 0; i < count; ++i) s.pod(group + "-" + std::to_string(i), group, cpu_each, 0);
}

// 24 cores. "fixed" states deserved 4; "guaranteed" is guaranteed 10 but asks for 2 more
// than that; "plain" shares the rest by weight.
TEST(QueuePolicy, DeservedAndGuaranteeAreHonoured) {
  ScenarioBuilder s;
  for (const char* n : {"n0", "n1", "n2"}) s.node(n, 8);
  s.queue("fixed", 0, {{"weight", 1}, {"deserved", {{"cpu", "4"}}}});
  s.queue("guaranteed", 0, {{"weight", 1}, {"guarantee", {{"resource", {{"cpu", "10"}}}}}});
  s.queue("plain", 0, {{"weight", 1}});
  pending_pods(s, "f", "fixed", 12, 1);
  pending_pods(s, "g", "guaranteed", 12, 1);
  pending_pods(s, "p", "plain", 24, 1);
  auto run = s.run();
  EXPECT_DOUBLE_EQ(cpu(run.queue("fixed"), "deserved"), 4.0);
  EXPECT_DOUBLE_EQ(cpu(run.queue("guaranteed"), "deserved"), 10.0);   // 10 guaranteed; an equal third of 20 is less
  EXPECT_DOUBLE_EQ(cpu(run.queue("plain"), "deserved"), 10.0);
  EXPECT_DOUBLE_EQ(cpu(run.queue("fixed"), "allocated"), 4.0);
  EXPECT_DOUBLE_EQ(cpu(run.queue("guaranteed"), "allocated"), 10.0);
  EXPECT_DOUBLE_EQ(cpu(run.queue("plain"), "allocated"), 10.0);
}

// The control-plane node carries NoSchedule: left out of the total, unless proportion's
// tolerations argument tolerates it; its nodeSelector argument narrows the total to a pool.
TEST(QueuePolicy, ProportionArgumentsShapeTheTotal) {
  auto build = [] {
    ScenarioBuilder s;
    s.node("cp", 8, json::object(),
           {{"taints", {{{"key", "node-role.kubernetes.io/control-plane"}, {"effect", "NoSchedule"}}}}});
    s.node("gpu-0", 8, {{"pool", "gpu"}});
    s.node("cpu-0", 8, {{"pool", "cpu"}});
    s.queue("a", 0);
    s.queue("b", 0);
    pending_pods(s, "a", "a", 20, 1);
    pending_pods(s, "b", "b", 20, 1);
    return s;
  };
  const std::string head = "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: predicates\n  - name: proportion\n";
  auto plain = build().run(config_of(head));
  EXPECT_DOUBLE_EQ(cpu(plain.queue("a"), "deserved"), 8.0);   // 16 usable cores, not 24
  auto tolerant = build().run(config_of(
      head + "    arguments:\n      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, "
             "effect: NoSchedule}]\n"));
  EXPECT_DOUBLE_EQ(cpu(tolerant.queue("a"), "deserved"), 12.0);
  auto pool = build().run(config_of(head + "    arguments:\n      nodeSelector: {pool: gpu}\n"));
  EXPECT_DOUBLE_EQ(cpu(pool.queue("a"), "deserved"), 4.0);
}

// drf: inside one queue the job with the smaller dominant share goes first. "big" already
// holds 6 cores; "small" holds 1; one more core is free and both want it.
TEST(QueuePolicy, DrfOrdersJobsInsideAQueue) {
  ScenarioBuilder s;
  s.node("n0", 8);
  s.queue("q", 0);
  s.group("big", "q", 1, 0);
  s.bound("big", "n0", 6, 1);
  s.group("small", "q", 1, 0);
  s.bound("small", "n0", 1, 1);
  s.pod("big-new", "big", 1, 1);
  s.pod("small-new", "small", 1, 1);
  auto run = s.run();
  EXPECT_EQ(run.node_of("default/small-new"), "n0");
  EXPECT_EQ(run.node_of("default/big-new"), "");
}

// conformance: a kube-system pod is never a reclaim victim, even in a queue above its
// share; reclaimable: false protects a whole queue. The same pods in a reclaimable queue
// outside kube-system are reclaimed.
TEST(QueuePolicy, ConformanceAndUnreclaimableQueuesAreNeverVictims) {
  struct Case {
    const char* ns;
    bool reclaimable;
    size_t evictions;
  };
  for (const Case& c : {Case{"kube-system", true, 0}, Case{"default", false, 0}, Case{"default", true, 2}}) {
    SCOPED_TRACE(std::string(c.ns) + (c.reclaimable ? "" : ", queue not reclaimable"));
    ScenarioBuilder s;
    s.node("n0", 8);
    // One job of four pods, minMember 1 (Volcano's gang never takes a job below its minMember).
    s.queue("default", 0, c.reclaimable ? json{{"weight", 1}} : json{{"weight", 1}, {"reclaimable", false}});
    s.add({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
           {"kind", "PodGroup"},
           {"metadata", {{"name", "old"}, {"namespace", c.ns}}},
           {"spec", {{"queue", "default"}, {"minMember", 1}}}});
    for (int i = 0; i < 4; ++i) s.pod("old-" + std::to_string(i), "old", 2, 0, "n0", 0, c.ns);
    s.queue("late", 1);
    s.group("l", "late", 2, 0);   // a gang of 2: reclaim serves a job up to its minMember, as Volcano's
    for (int i = 0; i < 2; ++i) s.pod("l-" + std::to_string(i), "l", 2, 0);
    auto run = s.run();
    EXPECT_EQ(run.report()["evictions"].size(), c.evictions) << run.report()["evictions"].dump();
    EXPECT_EQ(run.bound_in("l"), c.evictions == 0 ? 0 : 2);
  }
}

// preempt (inside a queue, with the priority plugin): a higher-priority job evicts a
// lower-priority one of the same queue; never the other way round.
TEST(QueuePolicy, PreemptInsideAQueueByPriority) {
  ScenarioBuilder s;
  s.node("n0", 8);
  s.queue("q", 0);
  s.group("low", "q", 1, 0);
  s.bound("low", "n0", 2, 4, /*priority=*/1);
  s.group("high", "q", 1, 1, false, {{"priorityClassName", "urgent"}});
  s.add({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "urgent"}}},
         {"value", 100}});
  s.pod("high-0", "high", 4, 1, "", 100);
  auto run = s.run(config_of("actions: \"enqueue, allocate, preempt\"\ntiers:\n- plugins:\n  - name: priority\n"
                             "  - name: gang\n  - name: predicates\n"));
  ASSERT_EQ(run.report()["evictions"].size(), 1u) << run.report()["evictions"].dump();
  EXPECT_NE(run.report()["evictions"][0]["reason"].get<std::string>().find("preempt"), std::string::npos);
  EXPECT_EQ(run.node_of("default/high-0"), "n0");
}

}  // namespace
}  // namespace weft::scheduler::testing
