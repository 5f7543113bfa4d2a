// weft-demo-report's defragment-step checks on small hand-made clusters: the fillers
// fragment every leaf and no more, the fragmentation check names a leaf with room for the
// whole gang, and the defragment check catches each claim that does not hold.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tools/demo/report/defragment_check.h"
#include "tools/demo/report/fragment.h"

namespace {

using nlohmann::json;
using weft::demo::ClusterView;
using weft::demo::PodShape;

json node(const std::string& name, const std::string& leaf) {
  return {{"metadata", {{"name", name}, {"labels", {{"weft.dev/ib-fabric", "f1"}, {"weft.dev/ib-leaf", leaf},
                                                     {"weft.dev/ib-spine", "s1"}}}}},
          {"status", {{"allocatable", {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "32"}}}}}};
}

json pod(const std::string& name, const std::string& job, const std::string& on, const std::string& cpu,
         const std::string& memory, const std::string& phase = "Running") {
  json p = {{"metadata", {{"name", name}, {"namespace", "ml"}, {"labels", {{"weft.dev/demo-job", job}}}}},
            {"spec", {{"containers", {{{"name", "main"}, {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}}}}}},
            {"status", {{"phase", phase}}}};
  if (!on.empty()) p["spec"]["nodeName"] = on;
  return p;
}

// Two leaves of two nodes: leaf x empty, leaf y with a 6-core pod on y1.
ClusterView two_leaves(std::vector<json> pods = {}) {
  json nodes = {{"items", {node("x1", "x"), node("x2", "x"), node("y1", "y"), node("y2", "y")}}};
  auto v = weft::demo::read_cluster(nodes, json{{"items", pods}}, json{{"items", json::array()}});
  EXPECT_TRUE(v) << v.message();
  return *v;
}

PodShape shape(const std::string& cpu, const std::string& memory) {
  auto l = weft::kube::parse_resource_list(json{{"cpu", cpu}, {"memory", memory}});
  EXPECT_TRUE(l) << l.message();
  return {*l};
}

TEST(DemoFragment, SlotsCountTheScarcestResourceOfTheFreeRoom) {
  auto v = two_leaves({pod("a", "web", "y1", "6", "4Gi")});
  const auto gang = shape("6", "24Gi");
  EXPECT_EQ(weft::demo::slots_on(v.nodes.at("x1"), gang), 2);   // 16 cores, 64 Gi: memory allows 2
  EXPECT_EQ(weft::demo::slots_on(v.nodes.at("y1"), gang), 1);   // 10 cores left
}

TEST(DemoFragment, FillersLeaveEveryLeafBelowTheGangAndNoLower) {
  auto v = two_leaves({pod("a", "web", "y1", "6", "4Gi")});
  weft::demo::Problems problems;
  auto plan = weft::demo::plan_fragmentation(v, shape("6", "24Gi"), 2, shape("4", "8Gi"), problems);
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  // Leaf x, 4 slots -> 2: each filler goes to the node with the most slots, then the most
  // free cores: x1, x2, x1, x2 (8 cores free each, 1 slot). Leaf y, 3 slots -> 2: y2 twice.
  EXPECT_EQ(plan["fillers"], (json{{"x1", 2}, {"x2", 2}, {"y2", 2}})) << plan.dump();
  for (const auto& leaf : plan["leaves"]) EXPECT_EQ(leaf["slots"], 2) << leaf.dump();
}

TEST(DemoFragment, FragmentedCheckNamesALeafWithRoomForTheWholeGang) {
  const auto gang = shape("6", "24Gi");
  json seen;
  auto open = weft::demo::check_fragmented(two_leaves(), gang, 4, seen);
  ASSERT_EQ(open.size(), 2u);
  EXPECT_NE(open[0].find("leaf x of fabric f1 has room for 4 of the gang's 4 pods"), std::string::npos) << open[0];

  auto full = two_leaves({pod("a", "b", "x1", "16", "1Gi"), pod("b", "b", "x2", "16", "1Gi"),
                          pod("c", "b", "y1", "16", "1Gi"), pod("d", "b", "y2", "16", "1Gi")});
  auto none = weft::demo::check_fragmented(full, gang, 4, seen);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].find("full, not fragmented"), std::string::npos);

  auto fragmented = two_leaves({pod("a", "b", "x1", "8", "1Gi"), pod("c", "b", "y1", "8", "1Gi")});
  EXPECT_TRUE(weft::demo::check_fragmented(fragmented, gang, 4, seen).empty()) << seen.dump();   // 3 slots each
}

struct DefragCase {
  ClusterView before, after;
  json plan, podgroups;
  std::string api_log;
};

// The gang g (2 pods) freed leaf x by evicting filler f from x1; f re-created on y2.
DefragCase good_case() {
  DefragCase c;
  c.before = two_leaves({pod("f", "batch", "x1", "12", "8Gi"), pod("g-0", "g", "", "6", "24Gi", "Pending"),
                         pod("g-1", "g", "", "6", "24Gi", "Pending")});
  c.after = two_leaves({pod("f", "batch", "y2", "12", "8Gi"), pod("g-0", "g", "x1", "6", "24Gi"),
                        pod("g-1", "g", "x2", "6", "24Gi")});
  c.plan = {{"evictions", {{{"pod", "ml/f"}, {"from", "x1"}, {"to", "y2"}, {"reason", "defragment: gang ml/g into leaf-x"}}}}};
  c.podgroups = {{"items", {{{"metadata", {{"name", "g"}, {"namespace", "ml"}, {"annotations",
      {{"weft.dev/reserved-room", R"({"domain":"leaf-x","nodes":["x1","x2"],"expires":"2030-01-01T00:00:00Z"})"}}}}}}}}};
  c.api_log = R"({"verb":"GET","path":"/api/v1/pods","status":200})"
              "\n"
              R"({"verb":"POST","path":"/api/v1/namespaces/ml/pods/f/eviction","status":201})"
              "\n";
  return c;
}

std::string bind_line(const std::string& pod, const std::string& time) {
  return json{{"verb", "POST"}, {"path", "/api/v1/namespaces/ml/pods/" + pod + "/binding"}, {"status", 201},
              {"at", "2026-11-25T" + time + "Z"}}.dump() + "\n";
}

weft::demo::Problems check(const DefragCase& c, json& seen) {
  return weft::demo::check_defragment({"g", c.plan, c.podgroups, c.api_log, &c.before, &c.after}, seen);
}

TEST(DemoDefragment, HoldsWhenTheGangIsInsideTheRoomAndTheVictimOutside) {
  auto c = good_case();
  json seen;
  auto problems = check(c, seen);
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  EXPECT_EQ(seen["leaf"], "x");
  EXPECT_EQ(seen["domain"], "leaf-x");
  EXPECT_EQ(seen["evictions"][0]["to"], "y2");
  EXPECT_TRUE(seen["evictions"][0]["eviction_api"].get<bool>());
  EXPECT_EQ(seen["gang_pods"].size(), 2u);

  // The room is the gang's only until it is placed: a victim re-created after the gang's
  // last binding may take what the gang left of it.
  c.after = two_leaves({pod("f", "batch", "x2", "12", "8Gi"), pod("g-0", "g", "x1", "6", "24Gi"),
                        pod("g-1", "g", "x2", "6", "24Gi")});
  c.api_log += bind_line("g-0", "12:00:01.100") + bind_line("g-1", "12:00:01.200") + bind_line("f", "12:00:02.000");
  problems = check(c, seen);
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  EXPECT_EQ(seen["gang_placed_at"], "2026-11-25T12:00:01.200Z");
  EXPECT_EQ(seen["evictions"][0]["bound_at"], "2026-11-25T12:00:02.000Z");
}

TEST(DemoDefragment, CatchesEachClaimThatDoesNotHold) {
  json seen;
  auto contains = [](const weft::demo::Problems& ps, const std::string& text) {
    for (const auto& p : ps)
      if (p.find(text) != std::string::npos) return true;
    return false;
  };
  {
    auto c = good_case();
    c.podgroups["items"][0]["metadata"].erase("annotations");
    EXPECT_TRUE(contains(check(c, seen), "carries no weft.dev/reserved-room"));
  }
  {
    auto c = good_case();
    c.api_log = R"({"verb":"DELETE","path":"/api/v1/namespaces/ml/pods/f","status":200})";
    EXPECT_TRUE(contains(check(c, seen), "no successful eviction of ml/f"));   // deleted, not evicted
  }
  {
    auto c = good_case();
    c.after = two_leaves({pod("f", "batch", "x2", "12", "8Gi"), pod("g-0", "g", "x1", "6", "24Gi"),
                          pod("g-1", "g", "y1", "6", "24Gi")});
    auto problems = check(c, seen);
    EXPECT_TRUE(contains(problems, "came back into the reserved room, on x2"));
    EXPECT_TRUE(contains(problems, "gang pod ml/g-1 is on y1, outside the reserved nodes"));
    EXPECT_TRUE(contains(problems, "spans 2 leaves"));
  }
  {
    // Into the room before the gang's second (its minMember-th) binding.
    auto c = good_case();
    c.after = two_leaves({pod("f", "batch", "x2", "12", "8Gi"), pod("g-0", "g", "x1", "6", "24Gi"),
                          pod("g-1", "g", "x2", "6", "24Gi")});
    c.api_log += bind_line("g-0", "12:00:01.100") + bind_line("f", "12:00:01.150") + bind_line("g-1", "12:00:01.200");
    EXPECT_TRUE(contains(check(c, seen), "came back into the reserved room, on x2, before the gang was placed"));
    // With minMember 1 the room was let go at the first binding.
    c.podgroups["items"][0]["spec"] = {{"minMember", 1}};
    auto problems = check(c, seen);
    EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  }
  {
    auto c = good_case();
    c.after = two_leaves({pod("g-0", "g", "x1", "6", "24Gi"), pod("g-1", "g", "", "6", "24Gi", "Pending")});
    auto problems = check(c, seen);
    EXPECT_TRUE(contains(problems, "victim ml/f was not re-placed"));
    EXPECT_TRUE(contains(problems, "gang pod ml/g-1 is not bound and Running"));
  }
  {
    auto c = good_case();
    c.plan["evictions"][0]["reason"] = "high-load: cpu 90% > 70%";
    auto problems = check(c, seen);
    EXPECT_TRUE(contains(problems, "for another reason"));
    EXPECT_TRUE(contains(problems, "evicted nothing for gang ml/g"));
  }
}

}  // namespace
