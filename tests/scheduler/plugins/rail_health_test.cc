// rail-health: nodes with fewer active IB rails than expected are scored down for
// multi-node gangs, configurable, reported per bound gang (Decisions::degraded_rails and an Event).
#include <gtest/gtest.h>

#include "scheduler/core/config.h"
#include "scheduler/core/session.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

// n1..n4 on one rail group, one pod each fills a node; the name breaks ties (n1 first).
json rail_node(const std::string& name, int rails, int active, const std::string& leaf = "0x11") {
  json labels = json::object();
  if (rails >= 0) {
    labels = {{"weft.dev/ib-fabric", "0xf"}, {"weft.dev/ib-leaf", leaf}, {"weft.dev/ib-spine", "0x51"},
              {"weft.dev/ib-rails", std::to_string(rails)}, {"weft.dev/ib-rails-active", std::to_string(active)}};
  }
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"status", {{"allocatable", {{"cpu", "8"}, {"memory", "64Gi"}, {"pods", "110"}}}}}};
}

struct Cluster {
  std::vector<json> objects;

  void gang(const std::string& name, int pods, int min_member) {
    if (min_member > 0)
      objects.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                         {"kind", "PodGroup"},
                         {"metadata", {{"name", name}, {"namespace", "default"}}},
                         {"spec", {{"minMember", min_member}}}});
    for (int i = 0; i < pods; ++i) {
      json annotations = json::object();
      if (min_member > 0) annotations["scheduling.k8s.io/group-name"] = name;
      objects.push_back(
          {{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", name + "-" + std::to_string(i)}, {"namespace", "default"}, {"annotations", annotations}}},
           {"spec",
            {{"containers", json::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", "8"}}}}}}})}}}});
    }
  }

  Decisions run(const std::string& plugin_arguments = "") const {
    std::string conf = "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n";
    if (plugin_arguments != "-") {
      conf += "  - name: rail-health\n";
      if (!plugin_arguments.empty()) conf += "    arguments: " + plugin_arguments + "\n";
    }
    auto config = parse_config(conf, "test.conf");
    EXPECT_TRUE(config.ok()) << config.message();
    SnapshotBuilder b;
    for (const auto& o : objects) {
      auto st = b.add(o, "test");
      EXPECT_TRUE(st.ok()) << st.message();
    }
    return run_session(b.build(), *config);
  }
};

std::set<std::string> nodes_of(const Decisions& d) {
  std::set<std::string> out;
  for (const auto& b : d.bindings) out.insert(b.node);
  return out;
}

const Event* event(const Decisions& d, const std::string& reason) {
  for (const auto& e : d.events)
    if (e.reason == reason) return &e;
  return nullptr;
}

Cluster one_rail_down() {
  Cluster c;
  c.objects = {rail_node("n1", 8, 7), rail_node("n2", 8, 8), rail_node("n3", 8, 8), rail_node("n4", 8, 8)};
  return c;
}

TEST(RailHealth, AMultiNodeGangIsKeptOffTheNodeWithADownedRail) {
  Cluster c = one_rail_down();
  c.gang("train", 2, 2);
  Decisions without = c.run("-");
  EXPECT_EQ(nodes_of(without), (std::set<std::string>{"n1", "n2"}));   // by name: the degraded node first
  Decisions d = c.run();
  EXPECT_EQ(nodes_of(d), (std::set<std::string>{"n2", "n3"}));
  const Event* e = event(d, "DegradedRailsAvoided");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, "PodGroup");
  EXPECT_EQ(e->object, "default/train");
  EXPECT_EQ(e->type, "Normal");
  EXPECT_NE(e->message.find("n1 (7/8 rails active)"), std::string::npos) << e->message;
  ASSERT_EQ(d.degraded_rails.size(), 1u);
  EXPECT_EQ(d.degraded_rails[0].podgroup, "default/train");
  EXPECT_EQ(d.degraded_rails[0].node, "n1");
  EXPECT_FALSE(d.degraded_rails[0].used);
}

TEST(RailHealth, AGangNeedingEveryNodeUsesTheDegradedOneAndSaysSo) {
  Cluster c = one_rail_down();
  c.gang("wide", 4, 4);
  Decisions d = c.run();
  EXPECT_EQ(d.bindings.size(), 4u);
  const Event* e = event(d, "DegradedRailsUsed");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->type, "Warning");
  EXPECT_NE(e->message.find("n1 (7/8"), std::string::npos) << e->message;
  EXPECT_EQ(event(d, "DegradedRailsAvoided"), nullptr);
  ASSERT_EQ(d.degraded_rails.size(), 1u);
  EXPECT_TRUE(d.degraded_rails[0].used);
}

TEST(RailHealth, SinglePodsAndSmallGangsAreNotSteered) {
  Cluster c = one_rail_down();
  c.gang("solo", 1, 0);   // a pod without a PodGroup
  Decisions d = c.run();
  EXPECT_EQ(nodes_of(d), (std::set<std::string>{"n1"}));
  EXPECT_TRUE(d.degraded_rails.empty());
  EXPECT_EQ(event(d, "DegradedRailsUsed"), nullptr);
  EXPECT_EQ(event(d, "DegradedRailsAvoided"), nullptr);

  Cluster g = one_rail_down();
  g.gang("pair", 2, 2);
  EXPECT_EQ(nodes_of(g.run("{rail-health.minMember: 3}")), (std::set<std::string>{"n1", "n2"}));
  EXPECT_EQ(nodes_of(g.run("{rail-health.minMember: \"2\"}")), (std::set<std::string>{"n2", "n3"}));
}

// An HCA gone from the node altogether: its own labels say 7 of 7, its rail group's peers have 8.
TEST(RailHealth, FewerRailsThanItsRailGroupPeersCountsAsDegraded) {
  Cluster c;
  c.objects = {rail_node("n1", 7, 7), rail_node("n2", 8, 8), rail_node("n3", 8, 8),
               rail_node("m1", 4, 4, "0x12")};   // another rail group with smaller nodes: not n1's peer
  c.gang("train", 2, 2);
  EXPECT_EQ(nodes_of(c.run()), (std::set<std::string>{"m1", "n2"}));   // m1: 4 of 4, as its own peers
  EXPECT_EQ(nodes_of(c.run("{rail-health.peers: false}")), (std::set<std::string>{"m1", "n1"}));
}

TEST(RailHealth, NodesWithoutRailLabelsScoreAsHealthy) {
  Cluster c;
  c.objects = {rail_node("a", -1, -1), rail_node("b", 8, 6), rail_node("c", 8, 8)};
  c.gang("train", 2, 2);
  Decisions d = c.run();
  EXPECT_EQ(nodes_of(d), (std::set<std::string>{"a", "c"}));
  ASSERT_EQ(d.degraded_rails.size(), 1u);
  EXPECT_EQ(d.degraded_rails[0].node, "b");
}

TEST(RailHealth, ArgumentsAreCheckedAndUnknownOnesRefused) {
  auto conf = [](const std::string& args) {
    return parse_config("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: rail-health\n    arguments: " + args + "\n",
                        "sched.conf");
  };
  EXPECT_TRUE(conf("{rail-health.weight: 5, rail-health.minMember: 2, rail-health.peers: \"false\"}").ok());
  auto unknown = conf("{rail-health.wieght: 5}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("rail-health.wieght"), std::string::npos) << unknown.message();
  EXPECT_NE(unknown.message().find("rail-health.weight, rail-health.minMember, rail-health.peers"), std::string::npos);
  EXPECT_FALSE(conf("{rail-health.weight: -1}").ok());
  EXPECT_FALSE(conf("{rail-health.weight: heavy}").ok());
  EXPECT_FALSE(conf("{rail-health.minMember: 0}").ok());
  EXPECT_FALSE(conf("{rail-health.minMember: 2.5}").ok());
  EXPECT_FALSE(conf("{rail-health.peers: maybe}").ok());
}

}  // namespace
}  // namespace weft::scheduler
