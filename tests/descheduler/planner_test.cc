// The planner's rules, each on a small cluster: classes, victims, gangs, topology,
// nodeFit with reservation, limits and the anti-oscillation rules.
#include <gtest/gtest.h>

#include "descheduler/core/plan_output.h"
#include "tests/descheduler/fixtures.h"

namespace weft::descheduler::test {
namespace {

// The seed's policy on one hot node among cool ones, with every kind of protected pod.
TEST(Planner, SeedPolicyOneHotNodeEvictsOnlySafePods) {
  std::vector<json> objs = {node("hot"), node("cool-1"), node("cool-2"), node("mid")};
  for (int i = 0; i < 6; ++i) objs.push_back(pod("web-" + std::to_string(i), "hot", {.cpu = "2"}));
  objs.push_back(pod("important", "hot", {.cpu = "4", .priority = 20000}));
  objs.push_back(pod("dns", "hot", {.ns = "kube-system", .cpu = "4", .priority = 2000000000}));
  objs.push_back(pod("db", "hot", {.cpu = "4", .pvc = true}));
  objs.push_back(pod("agent", "hot", {.cpu = "4", .owner_kind = "DaemonSet", .owner = "agent"}));
  objs.push_back(pod("bare", "hot", {.cpu = "4", .owner_kind = ""}));
  objs.push_back(podgroup("train", 2));
  objs.push_back(pod("train-0", "hot", {.cpu = "5", .owner_kind = "Job", .owner = "train", .group = "train"}));
  objs.push_back(pod("train-1", "mid", {.cpu = "5", .owner_kind = "Job", .owner = "train", .group = "train"}));
  Cluster c = build(objs);
  Plan p = plan(c, load({{"hot", {0.95, 0.5}}, {"cool-1", {0.1, 0.1}}, {"cool-2", {0.2, 0.2}}, {"mid", {0.5, 0.5}}}),
                seed_policy());
  EXPECT_EQ(class_of(p, "hot"), NodeClass::High);
  EXPECT_EQ(class_of(p, "cool-1"), NodeClass::Low);
  EXPECT_EQ(class_of(p, "mid"), NodeClass::Normal);
  // 95 % of 16 cores = 15.2; below 80 % (12.8) takes two 2-core pods.
  ASSERT_EQ(p.evictions.size(), 2u) << plan_to_json(p).dump(2);
  for (const auto& e : p.evictions) {
    EXPECT_EQ(e.from, "hot");
    EXPECT_TRUE(e.to == "cool-1" || e.to == "cool-2");
    EXPECT_EQ(e.pod().rfind("default/web-", 0), 0u) << e.pod();
    EXPECT_EQ(e.reason.rfind("high-load: cpu 95.0% > 80.0%", 0), 0u) << e.reason;
  }
  EXPECT_EQ(p.evictions[0].to, "cool-1");   // least loaded target first
  EXPECT_EQ(reason_of(p, "default/important"), "priority-threshold");
  EXPECT_EQ(reason_of(p, "kube-system/dns"), "system-critical");
  EXPECT_EQ(reason_of(p, "default/db"), "pvc");
  EXPECT_EQ(reason_of(p, "default/agent"), "daemonset");
  EXPECT_EQ(reason_of(p, "default/bare"), "bare-pod");
  EXPECT_EQ(reason_of(p, "default/train-0"), "gang-min-member");
}

TEST(Planner, ClassesFollowThresholds) {
  Cluster c = build({node("a"), node("b"), node("c"), node("d"), node("e")});
  Plan p = plan(c,
                load({{"a", {0.29, 0.29}}, {"b", {0.29, 0.31}}, {"c", {0.81, 0.1}}, {"d", {0.5, 0.86}}, {"e", {0.79, 0.84}}}),
                seed_policy());
  EXPECT_EQ(class_of(p, "a"), NodeClass::Low);      // every resource below thresholds
  EXPECT_EQ(class_of(p, "b"), NodeClass::Normal);   // one resource not below
  EXPECT_EQ(class_of(p, "c"), NodeClass::High);     // any resource above targets
  EXPECT_EQ(class_of(p, "d"), NodeClass::High);
  EXPECT_EQ(class_of(p, "e"), NodeClass::Normal);
  EXPECT_EQ(class_counts(p).begin()->second[NodeClass::High], 2);
}

TEST(Planner, StaleOrAbsentNodeIsNeverSourceOrTarget) {
  std::vector<json> objs = {node("hot"), node("stale-cool"), node("absent")};
  for (int i = 0; i < 4; ++i) objs.push_back(pod("w" + std::to_string(i), "hot", {.cpu = "2"}));
  Cluster c = build(objs);
  LoadReport l = load({{"hot", {0.95, 0.5}}});
  l.nodes["stale-cool"] = LoadSample{0.05, 0.05, t0() - std::chrono::minutes(10), t0() - std::chrono::minutes(10), "test"};
  Plan p = plan(c, l, seed_policy());
  EXPECT_EQ(class_of(p, "stale-cool"), NodeClass::Unknown);
  EXPECT_EQ(class_of(p, "absent"), NodeClass::Unknown);
  EXPECT_TRUE(p.evictions.empty()) << "unknown nodes must not look idle";
  EXPECT_EQ(class_counts(p).begin()->second[NodeClass::Unknown], 2);
  // The stale node still shows what it last measured, and why it is unknown.
  auto json_plan = plan_to_json(p);
  for (const auto& n : json_plan["nodes"])
    if (n["name"] == "stale-cool") {
      EXPECT_DOUBLE_EQ(n["cpu"].get<double>(), 0.05);
    }

  // A stale hot node is not a source either.
  std::vector<json> objs2 = {node("stale-hot"), node("cool")};
  for (int i = 0; i < 4; ++i) objs2.push_back(pod("w" + std::to_string(i), "stale-hot", {.cpu = "2"}));
  LoadReport l2 = load({{"cool", {0.1, 0.1}}});
  l2.nodes["stale-hot"] = LoadSample{0.99, 0.99, t0() - std::chrono::minutes(6), t0() - std::chrono::minutes(6), "test"};
  Plan p2 = plan(build(objs2), l2, seed_policy());
  EXPECT_EQ(class_of(p2, "stale-hot"), NodeClass::Unknown);
  EXPECT_TRUE(p2.evictions.empty());
}

// Freshness counts both readings: a fresh cpu series does not vouch for a memory series
// that stopped (or never came), whichever source reported it.
TEST(Planner, StaleOrMissingMemoryAloneMakesANodeUnknown) {
  const TimePoint fresh = t0() - std::chrono::seconds(30), old = t0() - std::chrono::minutes(6);
  std::vector<json> objs = {node("hot"), node("cool-stale-mem"), node("cool-no-mem")};
  for (int i = 0; i < 4; ++i) objs.push_back(pod("w" + std::to_string(i), "hot", {.cpu = "2"}));
  Cluster c = build(objs);
  LoadReport l = load({{"hot", {0.95, 0.5}}});
  l.nodes["cool-stale-mem"] = LoadSample{0.05, 0.05, fresh, old, "test"};
  l.invalid["cool-no-mem"] = "no memory series";
  Plan p = plan(c, l, seed_policy());
  EXPECT_EQ(class_of(p, "cool-stale-mem"), NodeClass::Unknown);
  EXPECT_EQ(class_of(p, "cool-no-mem"), NodeClass::Unknown);
  EXPECT_TRUE(p.evictions.empty()) << "a node with stale memory is no target";
  for (const auto& n : p.nodes)
    if (n.name == "cool-stale-mem") {
      EXPECT_NE(n.why.find("memory"), std::string::npos) << n.why;
    }

  // The same cool node with both readings fresh takes the pods: the rule above is what stopped them.
  l.nodes["cool-stale-mem"].memory_at = fresh;
  EXPECT_FALSE(plan(c, l, seed_policy()).evictions.empty());

  // A hot node whose memory went stale is not a source, though its cpu is fresh.
  LoadReport l2 = load({{"cool-stale-mem", {0.1, 0.1}}, {"cool-no-mem", {0.1, 0.1}}});
  l2.nodes["hot"] = LoadSample{0.95, 0.5, fresh, old, "test"};
  Plan p2 = plan(c, l2, seed_policy());
  EXPECT_EQ(class_of(p2, "hot"), NodeClass::Unknown);
  EXPECT_TRUE(p2.evictions.empty());
}

// The same rule through each source's parser, end to end into a plan.
TEST(Planner, MemoryFreshnessFromFileAnnotationsAndPrometheus) {
  const std::string fresh = "2026-11-23T09:59:30Z", old = "2026-11-23T09:50:00Z";
  auto cluster_with = [](std::map<std::string, std::string> annotations) {
    std::vector<json> objs;
    for (const char* n : {"hot", "cool"}) {
      objs.push_back(node(n));
      if (annotations.count(n)) objs.back()["metadata"]["annotations"] = {{"weft.dev/load", annotations[n]}};
    }
    for (int i = 0; i < 4; ++i) objs.push_back(pod("w" + std::to_string(i), "hot", {.cpu = "2"}));
    return build(objs);
  };
  Cluster plain = cluster_with({});

  // File: memory_at overrides at; an entry without memory leaves its node unknown.
  auto file = parse_load_file(R"({"nodes":[{"name":"hot","cpu":0.95,"memory":0.5,"at":")" + fresh + R"("},
      {"name":"cool","cpu":0.05,"memory":0.05,"at":")" + fresh + R"(","memory_at":")" + old + R"("}]})", "l.json");
  ASSERT_TRUE(file.ok()) << file.message();
  Plan pf = plan(plain, *file, seed_policy());
  EXPECT_EQ(class_of(pf, "cool"), NodeClass::Unknown);
  EXPECT_TRUE(pf.evictions.empty());
  auto file2 = parse_load_file(R"({"nodes":[{"name":"hot","cpu":0.95,"memory":0.5,"at":")" + fresh + R"("},
      {"name":"cool","cpu":0.05,"at":")" + fresh + R"("}]})", "l.json");
  ASSERT_TRUE(file2.ok()) << file2.message();
  Plan pf2 = plan(plain, *file2, seed_policy());
  EXPECT_EQ(class_of(pf2, "cool"), NodeClass::Unknown);
  EXPECT_TRUE(pf2.evictions.empty());

  // Annotations: a stale memory_at, and an annotation without memory.
  const std::string hot_ann = R"({"cpu":0.95,"memory":0.5,"at":")" + fresh + R"("})";
  for (const std::string& cool_ann :
       {R"({"cpu":0.05,"memory":0.05,"at":")" + fresh + R"(","memory_at":")" + old + R"("})",
        R"({"cpu":0.05,"at":")" + fresh + R"("})"}) {
    Cluster c = cluster_with({{"hot", hot_ann}, {"cool", cool_ann}});
    Plan pa = plan(c, load_from_annotations(c), seed_policy());
    EXPECT_EQ(class_of(pa, "hot"), NodeClass::High) << cool_ann;
    EXPECT_EQ(class_of(pa, "cool"), NodeClass::Unknown) << cool_ann;
    EXPECT_TRUE(pa.evictions.empty()) << cool_ann;
  }
  // Control: fresh annotations on both move pods.
  Cluster ok = cluster_with({{"hot", hot_ann}, {"cool", R"({"cpu":0.05,"memory":0.05,"at":")" + fresh + R"("})"}});
  EXPECT_FALSE(plan(ok, load_from_annotations(ok), seed_policy()).evictions.empty());

  // Prometheus: cool's newest memory sample is old while its cpu is current.
  const double now_s = std::chrono::duration<double>(t0().time_since_epoch()).count();
  std::map<std::string, ResourceResults> r;
  for (const char* n : {"hot", "cool"}) {
    bool hot = std::string(n) == "hot";
    r["cpu"].value[n] = {hot ? 0.95 : 0.05, t0()};
    r["memory"].value[n] = {hot ? 0.5 : 0.05, t0()};
    r["cpu"].newest[n] = {now_s - 15, t0()};
    r["memory"].newest[n] = {hot ? now_s - 15 : now_s - 600, t0()};
  }
  Plan pp = plan(plain, join_prometheus(r, "prometheus x"), seed_policy());
  EXPECT_EQ(class_of(pp, "cool"), NodeClass::Unknown);
  EXPECT_TRUE(pp.evictions.empty());
  r["memory"].newest["cool"].value = now_s - 15;
  EXPECT_FALSE(plan(plain, join_prometheus(r, "prometheus x"), seed_policy()).evictions.empty());
  r["memory"].newest.erase("cool");   // the memory series is gone: no recent sample at all
  Plan pp2 = plan(plain, join_prometheus(r, "prometheus x"), seed_policy());
  EXPECT_EQ(class_of(pp2, "cool"), NodeClass::Unknown);
  EXPECT_TRUE(pp2.evictions.empty());
}

TEST(Planner, SourceDownMeansNothingMoves) {
  std::vector<json> objs = {node("hot"), node("cool")};
  for (int i = 0; i < 4; ++i) objs.push_back(pod("w" + std::to_string(i), "hot", {.cpu = "2"}));
  LoadReport l;
  l.source_name = "prometheus http://127.0.0.1:1";
  l.source_error = "connection refused";
  Plan p = plan(build(objs), l, seed_policy());
  EXPECT_TRUE(p.evictions.empty());
  EXPECT_EQ(class_counts(p).begin()->second[NodeClass::Unknown], 2);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("is down"), std::string::npos);
}

TEST(Planner, VictimsLowestPriorityFirstThenLargest) {
  std::vector<json> objs = {node("hot"), node("cool", {}, "64", "256Gi")};
  objs.push_back(pod("big-prio", "hot", {.cpu = "4", .priority = 100}));
  objs.push_back(pod("small", "hot", {.cpu = "1"}));
  objs.push_back(pod("big", "hot", {.cpu = "3"}));
  Policy pol = seed_policy();
  pol.profiles[0].evictor.priority_threshold.value = 1000;
  // 15.2 cores; one 3-core pod takes it to 12.2 (76 %).
  Plan p = plan(build(objs), load({{"hot", {0.95, 0.3}}, {"cool", {0.1, 0.1}}}), pol);
  ASSERT_EQ(p.evictions.size(), 1u);
  EXPECT_EQ(p.evictions[0].pod(), "default/big");
}

TEST(Planner, NodeFitReservesRoomOnTheTarget) {
  std::vector<json> objs = {node("hot", {}, "100", "400Gi"), node("cool", {}, "64", "256Gi")};
  objs.push_back(pod("resident", "cool", {.cpu = "40", .owner = "resident"}));
  objs.push_back(pod("a", "hot", {.cpu = "15"}));
  objs.push_back(pod("b", "hot", {.cpu = "15"}));
  Plan p = plan(build(objs), load({{"hot", {0.99, 0.2}}, {"cool", {0.1, 0.1}}}), seed_policy());
  // 24 cores are free on cool: one 15-core pod fits, the second would count the same room.
  ASSERT_EQ(p.evictions.size(), 1u) << plan_to_json(p).dump(2);
  EXPECT_EQ(reason_of(p, p.evictions[0].pod() == "default/a" ? "default/b" : "default/a"), "node-fit");

  // Without nodeFit both move (load still allows it).
  Policy no_fit = seed_policy();
  no_fit.profiles[0].evictor.node_fit = false;
  Plan q = plan(build(objs), load({{"hot", {0.99, 0.2}}, {"cool", {0.1, 0.1}}}), no_fit);
  EXPECT_EQ(q.evictions.size(), 2u);
}

TEST(Planner, NodeFitHonoursTaintsSelectorsAndCordons) {
  json tainted = node("tainted");
  tainted["spec"]["taints"] = json::array({{{"key", "gpu"}, {"value", "x"}, {"effect", "NoSchedule"}}});
  json cordoned = node("cordoned");
  cordoned["spec"]["unschedulable"] = true;
  std::vector<json> objs = {node("hot"), tainted, cordoned, node("other-zone", {{"zone", "b"}})};
  objs.push_back(pod("w", "hot", {.cpu = "4", .node_selector = {{"zone", "a"}}}));
  Plan p = plan(build(objs),
                load({{"hot", {0.95, 0.3}}, {"tainted", {0.1, 0.1}}, {"cordoned", {0.1, 0.1}}, {"other-zone", {0.1, 0.1}}}),
                seed_policy());
  EXPECT_TRUE(p.evictions.empty());
  EXPECT_EQ(reason_of(p, "default/w"), "node-fit");
}

// Upstream's stopping rule: a target takes pods while it has room below its
// targetThresholds, so the last one may take it past them; then the room is spent.
TEST(Planner, ATargetWithRoomTakesThePodEvenPastItsThreshold) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(pod("huge", "hot", {.cpu = "9"}));
  objs.push_back(pod("huge-2", "hot", {.cpu = "9"}));
  Plan p = plan(build(objs), load({{"hot", {0.95, 0.3}}, {"cool", {0.29, 0.1}}}), seed_policy());
  // cool: 0.29 * 16 = 4.64 cores, 8.16 below 80 %; the first 9-core pod lands it at 85 %
  // and spends the room, so the second stays.
  ASSERT_EQ(p.evictions.size(), 1u) << plan_to_json(p).dump();
  EXPECT_EQ(p.evictions[0].to, "cool");
  EXPECT_EQ(reason_of(p, "default/huge-2"), "");
}

// A target already at its targetThresholds takes nothing (target-full); another with room does.
TEST(Planner, ATargetAtItsThresholdIsFull) {
  Policy pol = seed_policy();
  pol.profiles[0].load_aware.target_thresholds["cpu"] = 30;
  std::vector<json> objs = {node("hot"), node("at-cap", {{"zone", "a"}}), node("roomy")};
  objs.push_back(pod("picky", "hot", {.cpu = "1", .node_selector = {{"zone", "a"}}}));
  objs.push_back(pod("free", "hot", {.cpu = "1"}));
  Plan p = plan(build(objs), load({{"hot", {0.95, 0.3}}, {"at-cap", {0.30, 0.1}}, {"roomy", {0.10, 0.1}}}), pol);
  EXPECT_EQ(reason_of(p, "default/picky"), "target-full") << plan_to_json(p).dump();
  ASSERT_EQ(p.evictions.size(), 1u);
  EXPECT_EQ(p.evictions[0].pod(), "default/free");
  EXPECT_EQ(p.evictions[0].to, "roomy");
}

TEST(Planner, StopsWhenLowNodesHaveNoRoomLeft) {
  std::vector<json> objs = {node("hot"), node("cool")};
  for (int i = 0; i < 8; ++i) objs.push_back(pod("w" + std::to_string(i), "hot", {.cpu = "1", .memory = "1Gi"}));
  // cool has 0.8*16 - 0.29*16 = 8.16 cores below its target: at most 8 one-core pods,
  // but the hot node needs only 3 (15.2 -> 12.2).
  Plan p = plan(build(objs), load({{"hot", {0.95, 0.3}}, {"cool", {0.29, 0.1}}}), seed_policy());
  EXPECT_EQ(p.evictions.size(), 3u);
  // Two hot nodes sharing one small target: the second finds the room used up.
  std::vector<json> objs2 = {node("hot-a"), node("hot-b"), node("cool")};
  for (int i = 0; i < 6; ++i) {
    objs2.push_back(pod("a" + std::to_string(i), "hot-a", {.cpu = "2", .memory = "1Gi"}));
    objs2.push_back(pod("b" + std::to_string(i), "hot-b", {.cpu = "2", .memory = "1Gi"}));
  }
  Plan q = plan(build(objs2), load({{"hot-a", {1.0, 0.3}}, {"hot-b", {0.99, 0.3}}, {"cool", {0.29, 0.1}}}), seed_policy());
  double moved = 2.0 * static_cast<double>(q.evictions.size());
  EXPECT_LE(0.29 * 16 + moved, 0.8 * 16) << plan_to_json(q).dump(2);
  EXPECT_GE(q.evictions.size(), 2u);
}

TEST(Planner, GangKeepsMinMemberAcrossTheWholePlan) {
  std::vector<json> objs = {node("hot-a"), node("hot-b"), node("cool-1", {}, "64", "256Gi"),
                            node("cool-2", {}, "64", "256Gi")};
  objs.push_back(podgroup("g", 3));
  for (int i = 0; i < 2; ++i) {
    objs.push_back(pod("g-a" + std::to_string(i), "hot-a", {.cpu = "4", .owner_kind = "Job", .owner = "g", .group = "g"}));
    objs.push_back(pod("g-b" + std::to_string(i), "hot-b", {.cpu = "4", .owner_kind = "Job", .owner = "g", .group = "g"}));
  }
  // 4 running, minMember 3: exactly one member may go, whichever node it is on.
  Plan p = plan(build(objs),
                load({{"hot-a", {1.0, 0.3}}, {"hot-b", {1.0, 0.3}}, {"cool-1", {0.1, 0.1}}, {"cool-2", {0.1, 0.1}}}),
                seed_policy());
  EXPECT_EQ(p.evictions.size(), 1u) << plan_to_json(p).dump(2);
  int gang_skips = 0;
  for (const auto& s : p.skipped) gang_skips += s.reason == "gang-min-member";
  EXPECT_GE(gang_skips, 1);
}

TEST(Planner, GangWithoutItsPodGroupIsNotEvicted) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(pod("orphan", "hot", {.cpu = "4", .group = "missing"}));
  Plan p = plan(build(objs), load({{"hot", {0.95, 0.3}}, {"cool", {0.1, 0.1}}}), seed_policy());
  EXPECT_TRUE(p.evictions.empty());
  EXPECT_EQ(reason_of(p, "default/orphan"), "gang-podgroup-missing");
}

std::map<std::string, std::string> ib(const std::string& fabric, const std::string& leaf, const std::string& spine) {
  return {{"weft.dev/rdma", "ib"}, {"weft.dev/ib-fabric", fabric}, {"weft.dev/ib-leaf", leaf}, {"weft.dev/ib-spine", spine}};
}

TEST(Planner, IbClusterSameGroupsStayInTheirFabric) {
  std::vector<json> objs = {node("hot", ib("fab-a", "0x01", "0x10")), node("cool-b", ib("fab-b", "0x02", "0x20"))};
  objs.push_back(podgroup("ring", 1, "default", {{"weft.dev/ib-cluster", "same"}}));
  objs.push_back(pod("ring-0", "hot", {.cpu = "4", .owner_kind = "Job", .owner = "ring", .group = "ring"}));
  objs.push_back(pod("ring-1", "hot", {.cpu = "4", .owner_kind = "Job", .owner = "ring", .group = "ring"}));
  LoadReport l = load({{"hot", {0.95, 0.3}}, {"cool-b", {0.1, 0.1}}, {"cool-a", {0.1, 0.1}}});
  Plan p = plan(build(objs), l, seed_policy());
  EXPECT_TRUE(p.evictions.empty());
  EXPECT_EQ(reason_of(p, "default/ring-0"), "topology");

  objs.push_back(node("cool-a", ib("fab-a", "0x03", "0x30")));
  Plan q = plan(build(objs), l, seed_policy());
  ASSERT_EQ(q.evictions.size(), 1u);
  EXPECT_EQ(q.evictions[0].to, "cool-a");
}

TEST(Planner, RdmaPodsOnIbNodesStayInTheirFabric) {
  std::vector<json> objs = {node("hot", ib("fab-a", "0x01", "0x10")), node("cool-b", ib("fab-b", "0x02", "0x20")),
                            node("cool-plain")};
  for (auto& n : objs) n["status"]["allocatable"]["rdma/hca_ib"] = "8";
  objs.push_back(pod("mpi", "hot", {.cpu = "4", .extra_requests = {{"rdma/hca_ib", "1"}}}));
  objs.push_back(pod("web", "hot", {.cpu = "4"}));
  Policy pol = seed_policy();
  Plan p = plan(build(objs), load({{"hot", {1.0, 0.3}}, {"cool-b", {0.1, 0.1}}, {"cool-plain", {0.2, 0.1}}}), pol);
  EXPECT_EQ(reason_of(p, "default/mpi"), "topology") << plan_to_json(p).dump(2);
  EXPECT_TRUE(evicted(p, "default/web"));
}

TEST(Planner, HardNetworkTopologyStaysWithinItsTier) {
  std::vector<json> objs = {node("hot", ib("fab", "0x01", "0x10")), node("cool-other-leaf", ib("fab", "0x02", "0x10")),
                            node("cool-other-spine", ib("fab", "0x03", "0x20"))};
  objs.push_back(podgroup("t1", 1, "default", {}, {{"mode", "hard"}, {"highestTierAllowed", 1}}));
  objs.push_back(podgroup("t2", 1, "default", {}, {{"mode", "hard"}, {"highestTierAllowed", 2}}));
  objs.push_back(podgroup("soft", 1, "default", {}, {{"mode", "soft"}, {"highestTierAllowed", 1}}));
  for (const char* g : {"t1", "t2", "soft"})
    for (int i = 0; i < 2; ++i)
      objs.push_back(pod(std::string(g) + "-" + std::to_string(i), "hot",
                         {.cpu = "1", .owner_kind = "Job", .owner = g, .group = g}));
  Policy pol = seed_policy();
  pol.profiles[0].load_aware.target_thresholds["cpu"] = 50;   // so every pod is wanted elsewhere
  pol.profiles[0].evictor.node_fit = false;
  Plan p = plan(build(objs),
                load({{"hot", {1.0, 0.3}}, {"cool-other-leaf", {0.05, 0.1}}, {"cool-other-spine", {0.0, 0.05}}}), pol);
  for (const auto& e : p.evictions) {
    if (e.name.rfind("t2-", 0) == 0) {
      EXPECT_EQ(e.to, "cool-other-leaf") << e.pod();
    }
    EXPECT_NE(e.name.rfind("t1-", 0), 0u) << "tier 1 group left its leaf: " << e.pod();
  }
  EXPECT_EQ(reason_of(p, "default/t1-0"), "topology");
  bool soft_moved_far = false;
  for (const auto& e : p.evictions) soft_moved_far |= e.name.rfind("soft-", 0) == 0 && e.to == "cool-other-spine";
  EXPECT_TRUE(soft_moved_far) << plan_to_json(p).dump(2);
}

TEST(Planner, EvictionLimits) {
  std::vector<json> objs = {node("hot-a"), node("hot-b"), node("cool-1", {}, "64", "256Gi"), node("cool-2", {}, "64", "256Gi")};
  for (int i = 0; i < 6; ++i) {
    objs.push_back(pod("a" + std::to_string(i), "hot-a", {.ns = i % 2 ? "team-1" : "team-2", .cpu = "1"}));
    objs.push_back(pod("b" + std::to_string(i), "hot-b", {.ns = "team-1", .cpu = "1"}));
  }
  LoadReport l = load({{"hot-a", {1.0, 0.3}}, {"hot-b", {1.0, 0.3}}, {"cool-1", {0.1, 0.1}}, {"cool-2", {0.1, 0.1}}});
  Policy pol = seed_policy();
  pol.max_per_node = 2;
  Plan p = plan(build(objs), l, pol);
  std::map<std::string, int> per_node;
  for (const auto& e : p.evictions) per_node[e.from]++;
  EXPECT_EQ(per_node["hot-a"], 2);
  EXPECT_EQ(per_node["hot-b"], 2);

  pol.max_per_node.reset();
  pol.max_total = 3;
  EXPECT_EQ(plan(build(objs), l, pol).evictions.size(), 3u);

  pol.max_total.reset();
  pol.max_per_namespace = 2;
  Plan q = plan(build(objs), l, pol);
  std::map<std::string, int> per_ns;
  for (const auto& e : q.evictions) per_ns[e.ns]++;
  EXPECT_EQ(per_ns["team-1"], 2);
  EXPECT_EQ(per_ns["team-2"], 2);
}

TEST(Planner, EvictableNamespacesIncludeAndExclude) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(pod("x", "hot", {.ns = "batch", .cpu = "4"}));
  objs.push_back(pod("y", "hot", {.ns = "web", .cpu = "4"}));
  LoadReport l = load({{"hot", {1.0, 0.3}}, {"cool", {0.1, 0.1}}});
  Policy pol = seed_policy();
  pol.profiles[0].load_aware.include_namespaces = {"batch"};
  Plan p = plan(build(objs), l, pol);
  EXPECT_TRUE(evicted(p, "batch/x"));
  EXPECT_EQ(reason_of(p, "web/y"), "namespace-excluded");
  pol.profiles[0].load_aware.include_namespaces.clear();
  pol.profiles[0].load_aware.exclude_namespaces = {"batch"};
  Plan q = plan(build(objs), l, pol);
  EXPECT_EQ(reason_of(q, "batch/x"), "namespace-excluded");
  EXPECT_TRUE(evicted(q, "web/y"));
}

TEST(Planner, LocalStorageAndSystemCriticalFlags) {
  std::vector<json> objs = {node("hot"), node("cool", {}, "64", "256Gi")};
  objs.push_back(pod("scratch", "hot", {.cpu = "3", .local_storage = true}));
  objs.push_back(pod("crit", "hot", {.cpu = "3", .priority = 2000000000}));
  LoadReport l = load({{"hot", {1.0, 0.3}}, {"cool", {0.1, 0.1}}});
  Policy pol = seed_policy();
  Plan p = plan(build(objs), l, pol);
  EXPECT_EQ(reason_of(p, "default/scratch"), "local-storage");
  EXPECT_EQ(reason_of(p, "default/crit"), "system-critical");
  pol.profiles[0].evictor.evict_local_storage_pods = true;
  pol.profiles[0].evictor.evict_system_critical_pods = true;
  Plan q = plan(build(objs), l, pol);
  EXPECT_TRUE(evicted(q, "default/scratch"));
  EXPECT_TRUE(evicted(q, "default/crit"));
}

TEST(Planner, PriorityThresholdByClassName) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "gold"}}}, {"value", 5000}});
  json gold = pod("gold-pod", "hot", {.cpu = "4"});
  gold["spec"].erase("priority");
  gold["spec"]["priorityClassName"] = "gold";
  objs.push_back(gold);
  objs.push_back(pod("cheap", "hot", {.cpu = "4", .priority = 10}));
  Policy pol = seed_policy();
  pol.profiles[0].evictor.priority_threshold = PriorityThreshold{std::nullopt, "gold"};
  Plan p = plan(build(objs), load({{"hot", {1.0, 0.3}}, {"cool", {0.1, 0.1}}}), pol);
  EXPECT_EQ(reason_of(p, "default/gold-pod"), "priority-threshold");
  EXPECT_TRUE(evicted(p, "default/cheap"));
  pol.profiles[0].evictor.priority_threshold = PriorityThreshold{std::nullopt, "nonexistent"};
  auto r = make_plan(build(objs), load({{"hot", {1.0, 0.3}}}), pol, {}, PlanOptions{t0(), Seconds(300), Seconds(600)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("nonexistent"), std::string::npos);
}

TEST(Planner, NodeSelectorLimitsTheNodesConsidered) {
  std::vector<json> objs = {node("hot", {{"pool", "a"}}), node("cool-a", {{"pool", "a"}}), node("cool-b", {{"pool", "b"}})};
  objs.push_back(pod("w", "hot", {.cpu = "4"}));
  Policy pol = seed_policy();
  pol.node_selector = kube::LabelSelector::parse("pool=b").value();
  Plan p = plan(build(objs), load({{"hot", {1.0, 0.3}}, {"cool-a", {0.1, 0.1}}, {"cool-b", {0.0, 0.1}}}), pol);
  EXPECT_TRUE(p.evictions.empty());
  EXPECT_TRUE(p.nodes.empty());   // one node selected: the runner skips the cycle (upstream needs two)
  pol.node_selector = kube::LabelSelector::parse("pool=a").value();
  Plan q = plan(build(objs), load({{"hot", {1.0, 0.3}}, {"cool-a", {0.1, 0.1}}, {"cool-b", {0.0, 0.1}}}), pol);
  ASSERT_EQ(q.evictions.size(), 1u);
  EXPECT_EQ(q.evictions[0].to, "cool-a");
}

TEST(Planner, RecentSourceRestsAWindowAndWorkloadsCoolDown) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(pod("w", "hot", {.cpu = "4", .owner = "web"}));
  LoadReport l = load({{"hot", {1.0, 0.3}}, {"cool", {0.1, 0.1}}});
  DeschedulerState s;
  s.source_evicted_at["hot"] = t0() - std::chrono::seconds(30);   // window is 60 s
  EXPECT_EQ(reason_of(plan(build(objs), l, seed_policy(), s), "default/w"), "source-resting");
  s.source_evicted_at["hot"] = t0() - std::chrono::seconds(61);
  EXPECT_EQ(reason_of(plan(build(objs), l, seed_policy(), s), "default/w"), "evicted");
  s.workload_moved_at["ReplicaSet/default/web"] = t0() - std::chrono::minutes(9);
  EXPECT_EQ(reason_of(plan(build(objs), l, seed_policy(), s), "default/w"), "cooldown");
  s.workload_moved_at["ReplicaSet/default/web"] = t0() - std::chrono::minutes(11);
  EXPECT_EQ(reason_of(plan(build(objs), l, seed_policy(), s), "default/w"), "evicted");
}

TEST(Planner, RecentArrivalsCountOnTheTarget) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(pod("w", "hot", {.cpu = "4"}));
  LoadReport l = load({{"hot", {1.0, 0.3}}, {"cool", {0.1, 0.1}}});
  DeschedulerState s;
  // 4 cores arrived 20 s ago: averaged metrics do not show them yet; cool is 35 % busy.
  s.arrivals["cool"] = Arrival{t0() - std::chrono::seconds(20), 4000, 0};
  Plan p = plan(build(objs), l, seed_policy(), s);
  EXPECT_EQ(class_of(p, "cool"), NodeClass::Normal);
  EXPECT_TRUE(p.evictions.empty());
  s.arrivals["cool"].at = t0() - std::chrono::seconds(61);
  EXPECT_EQ(plan(build(objs), l, seed_policy(), s).evictions.size(), 1u);
}

// Load that alternates between two nodes every cycle must not bounce a workload back
// and forth: over 20 one-minute cycles, no workload moves twice within the cooldown.
TEST(Planner, AlternatingLoadNeverMovesAWorkloadTwiceWithinCooldown) {
  std::vector<json> objs = {node("a"), node("b"), node("c", {}, "64", "256Gi")};
  for (int i = 0; i < 6; ++i) {
    objs.push_back(pod("pa" + std::to_string(i), "a", {.cpu = "2", .owner = "wa" + std::to_string(i)}));
    objs.push_back(pod("pb" + std::to_string(i), "b", {.cpu = "2", .owner = "wb" + std::to_string(i)}));
  }
  Policy pol = seed_policy();
  const auto cooldown = std::chrono::minutes(10);
  DeschedulerState state;
  std::map<std::string, std::vector<TimePoint>> moves;   // workload -> times
  int total = 0;
  for (int cycle = 0; cycle < 20; ++cycle) {
    TimePoint now = t0() + std::chrono::minutes(cycle);
    bool a_hot = cycle % 2 == 0;
    // c is low when cycles start and then carries what moved there.
    LoadReport l = load({{"a", {a_hot ? 0.95 : 0.15, 0.3}}, {"b", {a_hot ? 0.15 : 0.95, 0.3}}, {"c", {0.1, 0.1}}}, now);
    // The cluster a moment later: evicted pods were re-placed (alternately back on a or b).
    auto r = make_plan(build(objs), l, pol, state, PlanOptions{now, Seconds(300), Seconds(600)});
    ASSERT_TRUE(r.ok());
    for (const auto& e : r->evictions) {
      for (auto& o : objs)
        if (o["kind"] == "Pod" && o["metadata"]["name"] == e.name)
          o["spec"]["nodeName"] = a_hot ? "b" : "a";   // the scheduler puts it on the other hot-to-be node
      moves[e.workload].push_back(now);
      ++total;
    }
    record_evictions(state, r->evictions, now, pol.profiles[0].load_aware.metrics.window);
  }
  EXPECT_GT(total, 0);
  for (const auto& [w, times] : moves)
    for (size_t i = 1; i < times.size(); ++i)
      EXPECT_GE(times[i] - times[i - 1], cooldown) << w << " moved twice within the cooldown";
}

TEST(Planner, PlanJsonHasTheDesignShape) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(pod("w", "hot", {.cpu = "4"}));
  objs.push_back(pod("d", "hot", {.cpu = "4", .owner_kind = "DaemonSet"}));
  json j = plan_to_json(plan(build(objs), load({{"hot", {1.0, 0.3}}, {"cool", {0.1, 0.1}}}), seed_policy()));
  ASSERT_EQ(j["nodes"].size(), 2u);
  for (const char* k : {"name", "cpu", "memory", "class"}) EXPECT_TRUE(j["nodes"][0].contains(k)) << k;
  ASSERT_EQ(j["evictions"].size(), 1u);
  EXPECT_EQ(j["evictions"][0]["pod"], "default/w");
  EXPECT_EQ(j["evictions"][0]["from"], "hot");
  EXPECT_EQ(j["evictions"][0]["to"], "cool");
  EXPECT_TRUE(j["evictions"][0]["reason"].is_string());
  ASSERT_EQ(j["skipped"].size(), 1u);
  EXPECT_EQ(j["skipped"][0], (json{{"pod", "default/d"}, {"reason", "daemonset"}}));
  EXPECT_NE(plan_to_table(plan(build(objs), load({{"hot", {1.0, 0.3}}, {"cool", {0.1, 0.1}}}), seed_policy()))
                .find("default/w"),
            std::string::npos);
}

}  // namespace
}  // namespace weft::descheduler::test
