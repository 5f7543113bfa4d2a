// Derived tiers with NVLink domains and mixed depth: NVL72-style racks beside H100 nodes
// in one tree, Topograph's labels where no weft agent runs, and a hard gang kept inside
// one NVLink domain.
#include <gtest/gtest.h>

#include "scheduler/core/derived_tiers.h"
#include "scheduler/core/topology.h"
#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;
using testing::ScenarioBuilder;

json ib(const std::string& leaf, const std::string& nvlink = "") {
  json l = {{"weft.dev/ib-fabric", "0xf"}, {"weft.dev/ib-spine", "0x51"}, {"weft.dev/ib-leaf", leaf}};
  if (!nvlink.empty()) l["nvidia.com/gpu.clique"] = nvlink;   // no agent label: GPU feature discovery's
  return l;
}

// g1..g4: two NVLink domains under rail group 0x11 (g5 on it without one); h1, h2: H100
// nodes on rail group 0x12.

Snapshot nodes_only(const std::vector<std::pair<std::string, json>>& nodes) {
  SnapshotBuilder b;
  for (const auto& [name, labels] : nodes) {
    auto st = b.add({{"apiVersion", "v1"},
                     {"kind", "Node"},
                     {"metadata", {{"name", name}, {"labels", labels}}},
                     {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "64Gi"}, {"pods", "110"}}}}}},
                    name);
    EXPECT_TRUE(st.ok()) << st.message();
  }
  return b.build();
}

const std::vector<std::pair<std::string, json>> kMixed = {
    {"g1", ib("0x11", "c1.1")}, {"g2", ib("0x11", "c1.1")}, {"g3", ib("0x11", "c1.2")}, {"g4", ib("0x11", "c1.2")},
    {"g5", ib("0x11")},         {"h1", ib("0x12")},         {"h2", ib("0x12")}};

const Domain* by_name(const Topology& t, const std::string& name) {
  for (const auto& d : t.domains)
    if (d.name == name) return &d;
  return nullptr;
}

TEST(DerivedTiers, NvlinkDomainsBelowRailGroupsWithPerNodeDepth) {
  Topology t = build_topology(nodes_only(kMixed));
  EXPECT_EQ(t.max_tier, 4);
  const Domain* nvl = by_name(t, "nvlink-c1.1");
  const Domain* rail = by_name(t, "leaf-0x11");
  const Domain* h100 = by_name(t, "leaf-0x12");
  ASSERT_TRUE(nvl && rail && h100);
  EXPECT_EQ(nvl->tier, 1);
  EXPECT_EQ(nvl->tier_name, "nvlink");
  EXPECT_EQ(nvl->nodes.size(), 2u);
  EXPECT_EQ(rail->tier, 2);
  EXPECT_EQ(rail->children.size(), 2u);
  EXPECT_EQ(rail->nodes.size(), 5u);
  EXPECT_EQ(t.domains[nvl->parent].name, "leaf-0x11");
  EXPECT_EQ(by_name(t, "spine-0x51")->tier, 3);
  EXPECT_EQ(by_name(t, "fabric-0xf")->tier, 4);
  // An H100 node starts at its rail group.
  EXPECT_EQ(t.domains[t.node_domains[5].front()].name, "leaf-0x12");
  // HyperNode output: the rail group names its two domains and g5, which sits in it directly.
  json objs = hypernode_objects(t);
  for (const auto& item : objs["items"]) {
    if (item["metadata"]["name"] != "leaf-0x11") continue;
    ASSERT_EQ(item["spec"]["members"].size(), 3u) << item.dump();
    EXPECT_EQ(item["spec"]["members"][2]["selector"]["exactMatch"]["name"], "g5");
  }
}

TEST(DerivedTiers, TopographLabelsWhereNoAgentRuns) {
  Topology t = build_topology(nodes_only(
      {{"t1", {{"fabric.topograph.run/tier-0", "sw-a"}, {"fabric.topograph.run/tier-1", "sw-s"},
               {"fabric.topograph.run/tier-2", "sw-c"}, {"accelerator.topograph.run/domain", "nvl1"}}},
       {"t2", {{"fabric.topograph.run/tier-0", "sw-a"}, {"fabric.topograph.run/tier-x", "bad"}}},
       {"t3", {{"network.topology.nvidia.com/leaf", "sw-b"}, {"network.topology.nvidia.com/spine", "sw-s"}}}}));
  ASSERT_TRUE(by_name(t, "nvlink-nvl1"));
  EXPECT_EQ(by_name(t, "nvlink-nvl1")->tier, 1);
  ASSERT_TRUE(by_name(t, "leaf-sw-a"));
  EXPECT_EQ(by_name(t, "leaf-sw-a")->tier, 2);
  EXPECT_EQ(by_name(t, "leaf-sw-a")->nodes.size(), 2u);
  EXPECT_EQ(by_name(t, "spine-sw-s")->nodes.size(), 2u);   // t1 (tier-1) and t3 (the older spine key)
  EXPECT_EQ(by_name(t, "fabric-sw-c")->tier, 4);
  ASSERT_EQ(t.problems.size(), 1u);
  EXPECT_NE(t.problems[0].find("fabric.topograph.run/tier-x"), std::string::npos) << t.problems[0];
}

TEST(DerivedTiers, HardGangAtTierOneStaysInOneNvlinkDomain) {
  ScenarioBuilder s;
  for (const auto& [name, labels] : kMixed) s.node(name, 4, labels);
  s.queue("default", 0);
  s.group("train", "default", 2, 0, false, {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}});
  for (int i = 0; i < 2; ++i) s.pod("train-" + std::to_string(i), "train", 4, 0);
  s.group("wide", "default", 3, 1, false, {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}});
  for (int i = 0; i < 3; ++i) s.pod("wide-" + std::to_string(i), "wide", 4, 1);
  auto run = s.run();
  const std::string a = run.node_of("default/train-0"), b = run.node_of("default/train-1");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  auto domain = [](const std::string& n) { return n == "g1" || n == "g2" ? 1 : n == "g3" || n == "g4" ? 2 : 0; };
  EXPECT_NE(domain(a), 0) << a;
  EXPECT_EQ(domain(a), domain(b)) << a << " " << b;
  // Three pods fit no NVLink domain (two nodes each): the hard gang waits.
  EXPECT_EQ(run.bound_in("wide"), 0);
}

}  // namespace
}  // namespace weft::scheduler
