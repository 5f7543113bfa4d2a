// Volcano's documented semantics that weft used to accept and ignore, one test each:
// Queue spec.priority, volcano.sh/preemptable, minTaskMember, highestTierName/tierName,
// hierarchical queues (capacity), preemption with the queue at its capability,
// best-effort preemptors, overcommit-factor below 1, enable switches, and a hard job
// preferring the domain that holds all its pods.
#include <gtest/gtest.h>

#include <set>

#include "kube/time.h"
#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler::testing {
namespace {

using nlohmann::json;

Config config_of(const std::string& text) {
  auto c = parse_config(text, "test.conf");
  EXPECT_TRUE(c.ok()) << c.message();
  return c.ok() ? *c : Config::defaults();
}

json raw_group(const std::string& name, const std::string& queue, int min, json spec_extra = json::object(),
               json annotations = json::object()) {
  json spec = {{"queue", queue}, {"minMember", min}};
  spec.update(spec_extra);
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
          {"spec", spec}};
}

// A pod with annotations (and requests; cpu "0" and no memory makes it best-effort).
json raw_pod(const std::string& name, const std::string& group, json requests, json annotations = json::object(),
             const std::string& node = "", int priority = 0) {
  annotations["scheduling.k8s.io/group-name"] = group;
  json spec = {{"schedulerName", "weft"},
               {"containers", json::array({{{"name", "c"}, {"resources", {{"requests", requests}}}}})}};
  if (priority) spec["priority"] = priority;
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
            {"spec", spec}};
  if (!node.empty()) p["spec"]["nodeName"] = node, p["status"]["phase"] = "Running";
  return p;
}

json cpu(int n) { return {{"cpu", std::to_string(n)}, {"memory", "1Gi"}}; }

// A 10-cpu node whose agent reported `load` (cpu and memory) over 60 s ending at `at`.
json reported_node(const std::string& name, double load, const std::string& at) {
  json report = {{"cpu", load}, {"memory", load}, {"window_s", 60}, {"source", "ebpf"}, {"at", at}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"annotations", {{"weft.dev/load", report.dump()}}}}},
          {"status", {{"allocatable", {{"cpu", "10"}, {"memory", "10Gi"}, {"pods", "110"}}}}}};
}

const char* kCapacityConf =
    "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
    "- plugins:\n  - name: predicates\n  - name: capacity\n";

// Queue spec.priority orders queues before their shares (proportion and capacity).
TEST(VolcanoSemantics, QueuePriorityGoesFirst) {
  ScenarioBuilder s;
  s.node("n0", 2);
  s.queue("a-low", 0, {{"weight", 1}});
  s.queue("b-high", 0, {{"weight", 1}, {"priority", 10}});
  for (const char* q : {"a-low", "b-high"}) {
    s.add(raw_group(std::string(q) + "-job", q, 1));
    s.add(raw_pod(std::string(q) + "-job-0", std::string(q) + "-job", cpu(2)));
  }
  auto run = s.run(config_of(kCapacityConf));
  EXPECT_EQ(run.node_of("default/b-high-job-0"), "n0");
  EXPECT_EQ(run.node_of("default/a-low-job-0"), "");
}

// volcano.sh/preemptable: "false" (pod annotation or label, or on the PodGroup when the
// pod says nothing) keeps a pod from ever being a reclaim or preempt victim.
TEST(VolcanoSemantics, PreemptableFalseIsNeverAVictim) {
  struct Case {
    const char* where;
    size_t evictions;
  };
  for (const Case& c : {Case{"pod-annotation", 0}, Case{"pod-label", 0}, Case{"podgroup", 0}, Case{"none", 2}}) {
    SCOPED_TRACE(c.where);
    ScenarioBuilder s;
    s.node("n0", 8);
    s.queue("default", 0);
    json group_annotations = json::object();
    if (std::string(c.where) == "podgroup") group_annotations["volcano.sh/preemptable"] = "false";
    s.add(raw_group("old", "default", 1, json::object(), group_annotations));
    for (int i = 0; i < 4; ++i) {
      json annotations = json::object();
      if (std::string(c.where) == "pod-annotation") annotations["volcano.sh/preemptable"] = "false";
      json p = raw_pod("old-" + std::to_string(i), "old", cpu(2), annotations, "n0");
      if (std::string(c.where) == "pod-label") p["metadata"]["labels"] = {{"volcano.sh/preemptable", "false"}};
      s.add(p);
    }
    s.queue("late", 1);
    s.group("l", "late", 2, 1);
    for (int i = 0; i < 2; ++i) s.pod("l-" + std::to_string(i), "l", 2, 1);
    auto run = s.run();
    EXPECT_EQ(run.report()["evictions"].size(), c.evictions) << run.report()["evictions"].dump();
  }
}

// spec.minTaskMember: the gang binds only when every task role has its minimum.
TEST(VolcanoSemantics, MinTaskMemberHoldsTheGangUntilEveryRoleFits) {
  for (bool master_fits : {false, true}) {
    SCOPED_TRACE(master_fits ? "master fits" : "master does not fit");
    ScenarioBuilder s;
    s.node("n0", 8);
    s.add(raw_group("job", "default", 3, {{"minTaskMember", {{"master", 1}, {"worker", 2}}}}));
    s.add(raw_pod("job-master", "job", cpu(master_fits ? 2 : 16), {{"volcano.sh/task-spec", "master"}}));
    for (int i = 0; i < 4; ++i)
      s.add(raw_pod("job-worker-" + std::to_string(i), "job", cpu(1), {{"volcano.sh/task-spec", "worker"}}));
    auto run = s.run();
    EXPECT_EQ(run.node_of("default/job-master") != "", master_fits);
    int workers = 0;
    for (int i = 0; i < 4; ++i) workers += run.node_of("default/job-worker-" + std::to_string(i)) != "";
    EXPECT_EQ(workers, master_fits ? 4 : 0);
  }
}

// Two tier-1 HyperNodes (tierName "rack") under one tier-2 (tierName "row").
void racks(ScenarioBuilder& s) {
  for (const char* n : {"r0-a", "r0-b", "r1-a", "r1-b"}) s.node(n, 4);
  auto hn = [](const std::string& name, int tier, const std::string& tier_name, json members) {
    return json{{"apiVersion", "topology.volcano.sh/v1alpha1"},
                {"kind", "HyperNode"},
                {"metadata", {{"name", name}}},
                {"spec", {{"tier", tier}, {"tierName", tier_name}, {"members", members}}}};
  };
  auto node_member = [](const std::string& regex) {
    return json{{"type", "Node"}, {"selector", {{"regexMatch", {{"pattern", regex}}}}}};
  };
  s.add(hn("rack-0", 1, "rack", json::array({node_member("^r0-")})));
  s.add(hn("rack-1", 1, "rack", json::array({node_member("^r1-")})));
  s.add(hn("row", 2, "row",
           json::array({{{"type", "HyperNode"}, {"selector", {{"exactMatch", {{"name", "rack-0"}}}}}},
                        {{"type", "HyperNode"}, {"selector", {{"exactMatch", {{"name", "rack-1"}}}}}}})));
}

// highestTierName names the highest tier by HyperNode spec.tierName.
TEST(VolcanoSemantics, HighestTierNameLimitsTheTier) {
  for (const char* tier : {"rack", "row"}) {
    SCOPED_TRACE(tier);
    ScenarioBuilder s;
    racks(s);
    // 12 cpu: more than a rack (8), less than the row (16).
    s.add(raw_group("job", "default", 3, {{"networkTopology", {{"mode", "hard"}, {"highestTierName", tier}}}}));
    for (int i = 0; i < 3; ++i) s.add(raw_pod("job-" + std::to_string(i), "job", cpu(4)));
    auto run = s.run();
    EXPECT_EQ(run.bound_in("job"), std::string(tier) == "row" ? 3 : 0);
    if (std::string(tier) == "rack") {
      EXPECT_NE(run.reason_of("default/job-0").find("no single HyperNode of tier <= 1"), std::string::npos)
          << run.reason_of("default/job-0");
    }
  }
}

TEST(VolcanoSemantics, HighestTierNameErrors) {
  SnapshotBuilder b;
  auto st = b.add(raw_group("job", "default", 1,
                            {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}, {"highestTierName", "rack"}}}}),
                  "s.yaml: document 1");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("highestTierAllowed and highestTierName are both set"), std::string::npos)
      << st.message();
  ScenarioBuilder s;
  racks(s);
  s.add(raw_group("job", "default", 1, {{"networkTopology", {{"mode", "hard"}, {"highestTierName", "pod"}}}}));
  s.add(raw_pod("job-0", "job", cpu(1)));
  auto run = s.run();
  EXPECT_EQ(run.node_of("default/job-0"), "");
  EXPECT_NE(run.reason_of("default/job-0").find("highestTierName 'pod' matches no HyperNode spec.tierName"),
            std::string::npos)
      << run.reason_of("default/job-0");
}

// capacity with enableHierarchy: a root queue capped at 75 cpu bounds all its children
// together, though each child alone has no capability.
TEST(VolcanoSemantics, HierarchicalQueuesAreBoundedByTheirParents) {
  ScenarioBuilder s;
  for (int i = 0; i < 10; ++i) s.node("n" + std::to_string(i), 10);   // 100 cpu
  s.queue("root", 0, {{"weight", 1}, {"capability", {{"cpu", "75"}}}});
  s.queue("team", 0, {{"weight", 1}, {"parent", "root"}, {"capability", {{"cpu", "60"}}}});
  s.queue("c1", 0, {{"weight", 1}, {"parent", "team"}});
  s.queue("c2", 0, {{"weight", 1}});   // no parent: under root
  for (const char* q : {"c1", "c2"}) {
    for (int j = 0; j < 60; ++j) {
      std::string g = std::string(q) + "-" + std::to_string(j);
      s.add(raw_group(g, q, 1));
      s.add(raw_pod(g + "-0", g, cpu(1)));
    }
  }
  auto run = s.run(config_of("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: priority\n"
                             "  - name: gang\n- plugins:\n  - name: predicates\n  - name: capacity\n"
                             "    enableHierarchy: true\n"));
  int c1 = run.bound_in("c1"), c2 = run.bound_in("c2");
  EXPECT_EQ(c1 + c2, 75);
  EXPECT_LE(c1, 60);
}

// Job priority comes from the PodGroup's priorityClassName, as in Volcano.
void urgent_class(ScenarioBuilder& s) {
  s.add({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "urgent"}}},
         {"value", 100}});
}

const char* kPreemptConf =
    "actions: \"enqueue, allocate, preempt\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
    "  - name: conformance\n- plugins:\n  - name: predicates\n  - name: proportion\n";

// A queue at its capability still preempts inside itself: the victims leave the queue
// first, then the queue may take the preemptor (Volcano evicts, then checks the queue).
TEST(VolcanoSemantics, PreemptWithTheQueueAtItsCapability) {
  ScenarioBuilder s;
  s.node("n0", 16);
  s.queue("q", 0, {{"weight", 1}, {"capability", {{"cpu", "4"}}}});
  s.group("low", "q", 1, 0);
  s.bound("low", "n0", 2, 2, /*priority=*/1);
  urgent_class(s);
  s.group("high", "q", 1, 1, false, {{"priorityClassName", "urgent"}});
  s.pod("high-0", "high", 2, 1, "", 100);
  auto run = s.run(config_of(kPreemptConf));
  ASSERT_EQ(run.report()["evictions"].size(), 1u) << run.report()["evictions"].dump();
  EXPECT_EQ(run.node_of("default/high-0"), "n0");
}

// A best-effort preemptor (no requests) on a node whose pod count is full preempts a
// best-effort pod of lower priority, never a pod that requests resources.
TEST(VolcanoSemantics, BestEffortPreemptorTakesOnlyBestEffortPods) {
  for (bool victims_best_effort : {true, false}) {
    SCOPED_TRACE(victims_best_effort ? "best-effort victims" : "burstable victims");
    ScenarioBuilder s;
    s.add({{"apiVersion", "v1"},
           {"kind", "Node"},
           {"metadata", {{"name", "n0"}}},
           {"status", {{"allocatable", {{"cpu", "8"}, {"memory", "8Gi"}, {"pods", "2"}}}}}});
    s.queue("q", 0);
    s.add(raw_group("low", "q", 1));
    json req = victims_best_effort ? json::object() : cpu(1);
    for (int i = 0; i < 2; ++i) s.add(raw_pod("low-" + std::to_string(i), "low", req, json::object(), "n0", 1));
    urgent_class(s);
    s.add(raw_group("high", "q", 1, {{"priorityClassName", "urgent"}}));
    json be = raw_pod("high-0", "high", json::object(), json::object(), "", 100);
    be["metadata"]["annotations"]["weft.dev/arrival-cycle"] = "1";
    s.add(be);
    std::string conf = kPreemptConf;   // best-effort pods are placed by backfill
    conf.replace(conf.find("preempt\""), 8, "preempt, backfill\"");
    auto run = s.run(config_of(conf));
    EXPECT_EQ(run.report()["evictions"].size(), victims_best_effort ? 1u : 0u) << run.report()["evictions"].dump();
    EXPECT_EQ(run.node_of("default/high-0") != "", victims_best_effort);
  }
}

// overcommit-factor below 1: Volcano warns and uses its default 1.2.
TEST(VolcanoSemantics, OvercommitFactorBelowOneIsWarnedAndDefaulted) {
  auto c = parse_config("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: overcommit\n"
                        "    arguments: {overcommit-factor: 0.5}\n",
                        "sched.conf");
  ASSERT_TRUE(c.ok()) << c.message();
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("using the default 1.2"), std::string::npos) << c->warnings[0];
  // With 1.2, 10 cpu of idle capacity admits 12 cpu of minResources, not 5.
  ScenarioBuilder s;
  s.node("n0", 10);
  s.add(raw_group("job", "default", 1, {{"minResources", {{"cpu", "11"}}}}));
  s.add(raw_pod("job-0", "job", cpu(1)));
  auto run = s.run(*c);
  EXPECT_EQ(run.podgroup("default/job")["phase"], "Running");
}

// enabledAllocatable: false on proportion drops its allocatable check: a queue may go
// past its deserved share. enablePreemptable: false on priority: equal-priority jobs
// become victims (gang and conformance still vote).
TEST(VolcanoSemantics, EnableSwitchesDropTheirCallbacks) {
  for (bool allocatable : {true, false}) {
    ScenarioBuilder s;
    s.node("n0", 8);
    s.queue("a", 0);
    s.queue("b", 0);
    s.group("a-job", "a", 1, 0);
    for (int i = 0; i < 8; ++i) s.pod("a-job-" + std::to_string(i), "a-job", 1, 0);
    s.group("b-job", "b", 1, 0);
    s.pod("b-job-0", "b-job", 16, 0);   // asks more than the node: never placed, but counts for shares
    std::string conf = std::string("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n") +
                       "  - name: predicates\n  - name: proportion\n" +
                       (allocatable ? "" : "    enabledAllocatable: false\n");
    auto run = s.run(config_of(conf));
    EXPECT_EQ(run.bound_in("a-job"), allocatable ? 4 : 8);
  }
  for (bool preemptable : {true, false}) {
    ScenarioBuilder s;
    s.node("n0", 4);
    s.queue("q", 0);
    s.group("first", "q", 1, 0);
    s.bound("first", "n0", 2, 2);
    s.group("second", "q", 1, 1);
    s.pod("second-0", "second", 2, 1);
    std::string conf = std::string(kPreemptConf);
    if (!preemptable) conf.replace(conf.find("  - name: priority\n"), 19, "  - name: priority\n    enablePreemptable: false\n");
    auto run = s.run(config_of(conf));
    EXPECT_EQ(run.report()["evictions"].size(), preemptable ? 0u : 1u) << run.report()["evictions"].dump();
  }
}

// A hard job (minMember 6, 10 replicas, highestTierAllowed 2) goes to the tier-2 domain
// that holds all ten rather than a tier-1 rack that holds only eight.
TEST(VolcanoSemantics, WholeJobDomainWinsOverALowerTierHoldingMinMember) {
  ScenarioBuilder s;
  auto hn = [](const std::string& name, int tier, json members) {
    return json{{"apiVersion", "topology.volcano.sh/v1alpha1"},
                {"kind", "HyperNode"},
                {"metadata", {{"name", name}}},
                {"spec", {{"tier", tier}, {"members", members}}}};
  };
  auto nodes = [](const std::string& regex) {
    return json::array({{{"type", "Node"}, {"selector", {{"regexMatch", {{"pattern", regex}}}}}}});
  };
  // Row A: rack a0 (8 slots) + rack a1 (1 slot): 9 in all. Row B: racks b0, b1 of 5 slots: 10.
  s.node("a0-n0", 4);
  s.node("a0-n1", 4);
  s.node("a1-n0", 1);
  for (const char* n : {"b0-n0", "b1-n0"}) s.node(n, 5);
  s.add(hn("a0", 1, nodes("^a0-")));
  s.add(hn("a1", 1, nodes("^a1-")));
  s.add(hn("b0", 1, nodes("^b0-")));
  s.add(hn("b1", 1, nodes("^b1-")));
  auto children = [](const char* x, const char* y) {
    return json::array({{{"type", "HyperNode"}, {"selector", {{"exactMatch", {{"name", x}}}}}},
                        {{"type", "HyperNode"}, {"selector", {{"exactMatch", {{"name", y}}}}}}});
  };
  s.add(hn("row-a", 2, children("a0", "a1")));
  s.add(hn("row-b", 2, children("b0", "b1")));
  s.add(raw_group("job", "default", 6, {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 2}}}}));
  for (int i = 0; i < 10; ++i) s.add(raw_pod("job-" + std::to_string(i), "job", cpu(1)));
  auto run = s.run();
  EXPECT_EQ(run.bound_in("job"), 10);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(run.node_of("default/job-" + std::to_string(i))[0], 'b');
}

// No herd: load-aware scoring counts what it placed since the last load report, so a
// burst spreads instead of piling onto the node that looked idlest.
TEST(VolcanoSemantics, LoadAwareScoringDoesNotHerd) {
  const std::string at = "2026-01-01T00:00:00Z";
  ScenarioBuilder s;
  for (const auto& [name, load] : {std::pair{"n-idle", 0.1}, std::pair{"n-b", 0.5}, std::pair{"n-c", 0.5},
                                   std::pair{"n-d", 0.5}})
    s.add(reported_node(name, load, at));
  for (int i = 0; i < 4; ++i) {
    std::string g = "burst-" + std::to_string(i);
    s.add(raw_group(g, "default", 1));
    s.add(raw_pod(g + "-0", g, {{"cpu", "2"}, {"memory", "2Gi"}}));
  }
  auto conf = config_of("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n"
                        "  - name: usage\n");
  auto run = s.run_at(conf, kube::parse_rfc3339("2026-01-01T00:00:30Z").value());
  std::map<std::string, int> per_node;
  for (int i = 0; i < 4; ++i) ++per_node[run.node_of("default/burst-" + std::to_string(i) + "-0")];
  EXPECT_EQ(per_node.count(""), 0u);
  // n-idle at 10% + 20% + 20% = 50% ties the others: at most its first two go there.
  EXPECT_LE(per_node["n-idle"], 2) << json(per_node).dump();
  EXPECT_GE(per_node.size(), 3u) << json(per_node).dump();
}

// A 60 s load average barely shows a pod bound 0.3 s before it: such a pod still counts by
// its requests for the part of the window it missed (seen in the demo: two moved pods a
// second apart both went to the node whose report had just been written).
TEST(VolcanoSemantics, LoadAwareCountsAPodBoundInsideTheReportsWindow) {
  auto run_with_bound_at = [&](const std::string& scheduled_at) {
    ScenarioBuilder s;
    s.add(reported_node("n-a", 0.10, "2026-01-01T00:00:30Z"));
    s.add(reported_node("n-b", 0.30, "2026-01-01T00:00:30Z"));
    s.add(raw_group("moved", "default", 1));
    json moved = raw_pod("moved-0", "moved", {{"cpu", "4"}, {"memory", "4Gi"}}, json::object(), "n-a");
    moved["status"]["conditions"] = json::array(
        {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", scheduled_at}}});
    s.add(moved);
    s.add(raw_group("next", "default", 1));
    s.add(raw_pod("next-0", "next", {{"cpu", "1"}, {"memory", "1Gi"}}));
    auto conf = config_of("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n"
                          "  - name: usage\n");
    return s.run_at(conf, kube::parse_rfc3339("2026-01-01T00:00:31Z").value()).node_of("default/next-0");
  };
  // Bound 0.3 s before the report: n-a is 10 % + 40 % x (59.7 / 60), busier than n-b.
  EXPECT_EQ(run_with_bound_at("2026-01-01T00:00:29.7Z"), "n-b");
  // Bound a whole window before: the report has measured it; n-a is the idlest.
  EXPECT_EQ(run_with_bound_at("2025-12-31T23:59:00Z"), "n-a");
}

}  // namespace
}  // namespace weft::scheduler::testing
