// Reclaim for gangs bound to one IB cluster or a hard network tier: victims come from one
// domain only, the domain needing the fewest evictions wins, nothing is evicted when no
// single domain can be freed enough, and victims never take a gang below minMember.
// Scenarios are built in code (pods already bound where the case needs them).
#include <gtest/gtest.h>

#include <set>

#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler::testing {
namespace {

using nlohmann::json;

json fabric_labels(const std::string& fabric, const std::string& spine, const std::string& leaf) {
  return {{"weft.dev/ib-fabric", fabric}, {"weft.dev/ib-spine", spine}, {"weft.dev/ib-leaf", leaf}};
}

std::set<std::string> evicted_nodes(const ScenarioRun& run) {
  std::set<std::string> out;
  for (const auto& e : run.report()["evictions"]) out.insert(e["node"].get<std::string>());
  return out;
}

std::set<std::string> nodes_of(const ScenarioRun& run, const std::string& prefix, int count) {
  std::set<std::string> out;
  for (int i = 0; i < count; ++i) out.insert(run.node_of("default/" + prefix + "-" + std::to_string(i)));
  return out;
}

void expect_no_gang_below_min_after_any_cycle(const ScenarioRun& run, const std::map<std::string, int>& initial,
                                              const std::map<std::string, int>& min_member) {
  auto group_of = [](const std::string& pod) {   // "default/<group>-..."
    std::string name = pod.substr(pod.find('/') + 1);
    return name.substr(0, name.find('-'));
  };
  int cycle = 0;
  for (const auto& bound : bound_after_each_cycle(run.report(), group_of, initial)) {
    for (const auto& [g, n] : bound) {
      auto m = min_member.find(g);
      if (m != min_member.end()) {
        EXPECT_TRUE(n == 0 || n >= m->second) << g << " has " << n << " after cycle " << cycle;
      }
    }
    ++cycle;
  }
}

// A late queue's IB-cluster gang reclaims its share inside one fabric: fb already has
// 4 cores free, so it needs 6 victims where fa needs 8; fc is too small.
TEST(ReclaimInDomain, IbClusterGangReclaimsInsideOneFabric) {
  ScenarioBuilder s;
  for (auto [name, fabric] : {std::pair{"fa-0", "fa"}, {"fa-1", "fa"}, {"fb-0", "fb"}, {"fb-1", "fb"}, {"fc-0", "fc"}})
    s.node(name, 8, {{"weft.dev/ib-fabric", fabric}});
  s.queue("team-a", 0);
  s.group("a", "team-a", 1, 0);
  s.bound("a", "fa-0", 4, 2);
  s.bound("a", "fa-1", 4, 2);
  s.bound("a", "fb-0", 4, 2);
  s.bound("a", "fb-1", 2, 2);
  s.bound("a", "fc-0", 4, 2);
  s.queue("team-b", 1);
  s.group("g", "team-b", 4, 1, /*ib=*/true);
  for (int i = 0; i < 4; ++i) s.pod("g-" + std::to_string(i), "g", 4, 1);
  auto run = s.run();

  EXPECT_EQ(run.report()["evictions"].size(), 6u) << run.report()["evictions"].dump();
  EXPECT_EQ(evicted_nodes(run), (std::set<std::string>{"fb-0", "fb-1"}));
  for (const auto& e : run.report()["evictions"]) {
    EXPECT_EQ(e["cycle"], 1) << e;
    EXPECT_NE(e["reason"].get<std::string>().find("queue team-b reclaims it for job default/g"), std::string::npos) << e;
  }
  EXPECT_EQ(nodes_of(run, "g", 4), (std::set<std::string>{"fb-0", "fb-1"}));
  EXPECT_EQ(run.podgroup("default/g")["phase"], "Running");
  EXPECT_DOUBLE_EQ(run.queue("team-a")["allocated"]["cpu"].get<double>(), 24.0);
  EXPECT_DOUBLE_EQ(run.queue("team-b")["allocated"]["cpu"].get<double>(), 16.0);
}

// A hard tier-1 gang reclaims inside one leaf (derived from labels): leaf l1 has 4 cores
// free and needs 6 victims, leaf l0 would need 8; the spine (tier 2) is not allowed.
TEST(ReclaimInDomain, HardTierGangReclaimsInsideOneLeaf) {
  ScenarioBuilder s;
  s.node("n0", 8, fabric_labels("f0", "s0", "l0"));
  s.node("n1", 8, fabric_labels("f0", "s0", "l0"));
  s.node("n2", 8, fabric_labels("f0", "s0", "l1"));
  s.node("n3", 8, fabric_labels("f0", "s0", "l1"));
  s.queue("team-a", 0);
  s.group("a", "team-a", 1, 0);
  s.bound("a", "n0", 4, 2);
  s.bound("a", "n1", 4, 2);
  s.bound("a", "n2", 4, 2);
  s.bound("a", "n3", 2, 2);
  s.queue("team-b", 1);
  s.group("h", "team-b", 2, 1, false, {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}});
  for (int i = 0; i < 2; ++i) s.pod("h-" + std::to_string(i), "h", 8, 1);
  auto run = s.run();

  EXPECT_EQ(run.report()["evictions"].size(), 6u) << run.report()["evictions"].dump();
  EXPECT_EQ(evicted_nodes(run), (std::set<std::string>{"n2", "n3"}));
  EXPECT_EQ(nodes_of(run, "h", 2), (std::set<std::string>{"n2", "n3"}));
  EXPECT_EQ(run.podgroup("default/h")["phase"], "Running");
}

// The three fabrics could give the late queue its 12 cores of share between them, but no
// one fabric can hold 12: an IB-cluster gang evicts nothing and stays wholly pending,
// while the same gang without the annotation reclaims across fabrics.
TEST(ReclaimInDomain, NoReclaimWhenNoSingleDomainCanBeFreedEnough) {
  for (bool ib : {true, false}) {
    SCOPED_TRACE(ib ? "ib-cluster: same" : "no constraint");
    ScenarioBuilder s;
    for (auto [name, fabric] : {std::pair{"fa-0", "fa"}, {"fb-0", "fb"}, {"fc-0", "fc"}})
      s.node(name, 8, {{"weft.dev/ib-fabric", fabric}});
    s.queue("team-a", 0);
    s.group("a", "team-a", 1, 0);
    for (const char* n : {"fa-0", "fb-0", "fc-0"}) s.bound("a", n, 4, 2);
    s.queue("team-b", 1);
    s.group("g", "team-b", 3, 1, ib);
    for (int i = 0; i < 3; ++i) s.pod("g-" + std::to_string(i), "g", 4, 1);
    auto run = s.run();

    if (ib) {
      EXPECT_TRUE(run.report()["evictions"].empty()) << run.report()["evictions"].dump();
      EXPECT_EQ(run.bound_in("g"), 0);
      EXPECT_NE(run.reason_of("default/g-0").find("no single IB cluster"), std::string::npos)
          << run.reason_of("default/g-0");
      EXPECT_DOUBLE_EQ(run.queue("team-a")["allocated"]["cpu"].get<double>(), 24.0);
    } else {
      EXPECT_EQ(run.report()["evictions"].size(), 6u) << run.report()["evictions"].dump();
      EXPECT_EQ(run.bound_in("g"), 3);
    }
  }
}

// Victims never take a gang below minMember: fabric fa holds a gang at exactly its
// minMember (untouchable), fabric fb a gang with two pods above it. A 2-pod gang
// reclaims those two; a 3-pod gang would need a third and reclaims nothing.
TEST(ReclaimInDomain, VictimsNeverBreakAGang) {
  for (int size : {2, 3}) {
    SCOPED_TRACE("reclaiming gang of " + std::to_string(size));
    ScenarioBuilder s;
    for (auto [name, fabric] : {std::pair{"fa-0", "fa"}, {"fa-1", "fa"}, {"fb-0", "fb"}, {"fb-1", "fb"}})
      s.node(name, 8, {{"weft.dev/ib-fabric", fabric}});
    s.queue("team-a", 0);
    s.group("ga", "team-a", 4, 0);
    s.bound("ga", "fa-0", 2, 4);
    s.bound("ga", "fa-1", 2, 4);
    s.group("gb", "team-a", 2, 0);
    s.bound("gb", "fb-0", 2, 4);
    s.bound("gb", "fb-1", 2, 4);
    s.queue("team-b", 1);
    s.group("g", "team-b", size, 1, /*ib=*/true);
    for (int i = 0; i < size; ++i) s.pod("g-" + std::to_string(i), "g", 4, 1);
    auto run = s.run();

    expect_no_gang_below_min_after_any_cycle(run, {{"ga", 4}, {"gb", 4}, {"g", 0}}, {{"ga", 4}, {"gb", 2}, {"g", size}});
    if (size == 2) {
      ASSERT_EQ(run.report()["evictions"].size(), 2u) << run.report()["evictions"].dump();
      for (const auto& e : run.report()["evictions"]) EXPECT_EQ(e["pod"].get<std::string>().rfind("default/gb-", 0), 0u) << e;
      EXPECT_EQ(run.bound_in("g"), 2);
      for (const auto& n : nodes_of(run, "g", 2)) EXPECT_EQ(n.rfind("fb-", 0), 0u) << n;
      EXPECT_EQ(run.bound_in("gb"), 2);
    } else {
      EXPECT_TRUE(run.report()["evictions"].empty()) << run.report()["evictions"].dump();
      EXPECT_EQ(run.bound_in("g"), 0);
      EXPECT_EQ(run.bound_in("gb"), 4);
    }
    EXPECT_EQ(run.bound_in("ga"), 4);
  }
}

// Victims go lowest priority first: of two leaves needing as many victims, the one whose
// victims have the lower priority gives them, although its name sorts later. (Each job
// gives up only pods above its minMember, as Volcano's gang: one of its two here.)
TEST(ReclaimInDomain, LowerPriorityVictimsGoFirst) {
  ScenarioBuilder s;
  s.node("n0", 8, fabric_labels("f0", "s0", "l0"));
  s.node("n1", 8, fabric_labels("f0", "s0", "l1"));
  s.queue("team-a", 0);
  s.group("a", "team-a", 1, 0);
  s.bound("a", "n0", 2, 4, /*priority=*/10);
  s.group("lo", "team-a", 1, 0);
  s.bound("lo", "n1", 2, 4, /*priority=*/0);
  s.queue("team-b", 1);
  s.group("h", "team-b", 1, 1, false, {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}});
  s.pod("h-0", "h", 4, 1);
  auto run = s.run();
  ASSERT_EQ(run.report()["evictions"].size(), 1u) << run.report()["evictions"].dump();
  EXPECT_EQ(evicted_nodes(run), (std::set<std::string>{"n1"}));
  EXPECT_EQ(run.node_of("default/h-0"), "n1");
}

// A pod being deleted (metadata.deletionTimestamp) is Volcano's Releasing: it still holds
// its node, but it is never a victim (it is leaving already), never placed (pending, the
// API refuses it) and never one of its job's running pods (ReadyTaskNum counts Bound,
// Binding, Running, Allocated and Succeeded only).
json raw_pod(const std::string& name, const std::string& group, const std::string& node, bool terminating) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"schedulerName", "weft"},
                      {"tolerations", {{{"key", "spare"}, {"operator", "Exists"}}}},
                      {"containers", json::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", "2"}}}}}}})}}}};
  if (!group.empty()) p["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", group}};
  if (!node.empty()) p["spec"]["nodeName"] = node, p["status"]["phase"] = "Running";
  if (terminating) p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  return p;
}

TEST(ReclaimInDomain, TerminatingPodsAreNeitherVictimsNorPlaced) {
  ScenarioBuilder s;
  s.node("n0", 10);
  s.node("n1", 2, json::object(), {{"taints", {{{"key", "spare"}, {"effect", "NoSchedule"}}}}});
  // One job of five pods (minMember 1) on n0, two of them terminating: three run, and
  // its queue holds 6 cpu where the late queue's weight leaves it 4.
  s.queue("default", 0);
  s.group("old", "default", 1, 0);
  for (int i = 0; i < 5; ++i) s.add(raw_pod("old-" + std::to_string(i), "old", "n0", i < 2));
  s.add(raw_pod("dying", "", "", true));
  s.queue("late", 1, {{"weight", 3}});
  s.group("l", "late", 1, 1);
  for (int i = 0; i < 4; ++i) s.pod("l-" + std::to_string(i), "l", 2, 1);
  auto run = s.run();
  std::set<std::string> evicted;
  for (const auto& e : run.report()["evictions"]) evicted.insert(e["pod"].get<std::string>());
  EXPECT_FALSE(evicted.empty()) << run.report().dump();
  EXPECT_FALSE(evicted.count("default/old-0") || evicted.count("default/old-1")) << run.report().dump();
  EXPECT_EQ(run.node_of("default/dying"), "");
  EXPECT_EQ(run.node_of("default/l-0"), "n0") << run.report().dump();
}

// Terminating pods do not keep a job above its minMember: a job with two running and two
// terminating pods at minMember 2 gives up none, and the late queue's pod waits.
TEST(ReclaimInDomain, TerminatingPodsDoNotCountTowardMinMember) {
  ScenarioBuilder s;
  s.node("n0", 8);
  s.queue("default", 0);
  s.group("held", "default", 2, 0);
  for (int i = 0; i < 4; ++i) s.add(raw_pod("held-" + std::to_string(i), "held", "n0", i < 2));
  s.queue("late", 1);
  s.group("l", "late", 1, 1);
  s.pod("l-0", "l", 2, 1);
  auto run = s.run();
  EXPECT_TRUE(run.report()["evictions"].empty()) << run.report().dump();
  EXPECT_EQ(run.node_of("default/l-0"), "");
}

// A gang is never completed around a member that is leaving: minMember 2 with one member
// bound but terminating and one pending is not placed (the terminating one would be gone
// by the time the other runs); its node's room is still taken.
TEST(ReclaimInDomain, AGangIsNotCompletedAroundATerminatingMember) {
  ScenarioBuilder s;
  s.node("n0", 4);
  s.node("n1", 4);
  s.queue("default", 0);
  s.group("g", "default", 2, 0);
  s.add(raw_pod("g-0", "g", "n0", true));
  s.add(raw_pod("g-1", "g", "", false));
  s.group("solo", "default", 1, 0);
  s.pod("solo-0", "solo", 4, 0);
  auto run = s.run();
  EXPECT_EQ(run.node_of("default/g-1"), "") << run.report().dump();
  EXPECT_EQ(run.node_of("default/solo-0"), "n1") << "n0 is still held by the terminating g-0";
}

}  // namespace
}  // namespace weft::scheduler::testing
