// Volcano PodGroups (kube/podgroup.h) as the scheduler and descheduler read them.
#include <gtest/gtest.h>

#include "kube/podgroup.h"

namespace weft::kube {
namespace {

using nlohmann::json;

json group(json spec, json annotations = json::object()) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", "train"}, {"namespace", "ml"}, {"annotations", annotations}}},
          {"spec", spec}};
}

TEST(PodGroup, ReadsEveryModelledField) {
  auto g = parse_podgroup(group(
      {{"queue", "research"},
       {"minMember", 16},
       {"minTaskMember", {{"worker", 15}, {"master", 1}}},
       {"minResources", {{"cpu", "64"}, {"nvidia.com/gpu", 128}}},
       {"priorityClassName", "high-priority"},
       {"networkTopology", {{"mode", "soft"}, {"highestTierAllowed", 2}}}},
      {{"weft.dev/ib-cluster", "same"}}));
  ASSERT_TRUE(g.ok()) << g.message();
  EXPECT_EQ(g->key(), "ml/train");
  EXPECT_EQ(g->queue, "research");
  EXPECT_EQ(g->min_member, 16);
  EXPECT_EQ(g->min_task_member, (std::map<std::string, int32_t>{{"master", 1}, {"worker", 15}}));
  ASSERT_TRUE(g->min_resources.has_value());
  EXPECT_EQ(g->min_resources->at("cpu"), 64000);
  EXPECT_EQ(g->min_resources->at("nvidia.com/gpu"), 128000);
  EXPECT_EQ(g->priority_class_name, "high-priority");
  ASSERT_TRUE(g->network_topology.has_value());
  EXPECT_EQ(g->network_topology->mode, PodGroupNetworkTopology::Mode::Soft);
  EXPECT_EQ(g->network_topology->highest_tier_allowed, 2);
  EXPECT_TRUE(g->same_ib_cluster);
}

TEST(PodGroup, VolcanoDefaults) {
  json bare = group(json::object());
  bare["metadata"].erase("namespace");
  auto g = parse_podgroup(bare);
  ASSERT_TRUE(g.ok()) << g.message();
  EXPECT_EQ(g->key(), "default/train");
  EXPECT_EQ(g->queue, "default");
  EXPECT_EQ(g->min_member, 0);
  EXPECT_FALSE(g->min_resources.has_value());
  EXPECT_FALSE(g->network_topology.has_value());
  EXPECT_FALSE(g->same_ib_cluster);
  auto hard = parse_podgroup(group({{"networkTopology", json::object()}}));
  ASSERT_TRUE(hard.ok()) << hard.message();
  EXPECT_EQ(hard->network_topology->mode, PodGroupNetworkTopology::Mode::Hard);
  EXPECT_FALSE(hard->network_topology->highest_tier_allowed.has_value());
  auto named = parse_podgroup(group({{"networkTopology", {{"highestTierName", "spine"}}}}));
  ASSERT_TRUE(named.ok()) << named.message();
  EXPECT_EQ(named->network_topology->highest_tier_name, "spine");
}

// Volcano's schema: highestTierAllowed has Minimum=0, so 0 is valid (the descheduler
// used to require >= 1).
TEST(PodGroup, HighestTierAllowedZeroIsValid) {
  auto g = parse_podgroup(group({{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 0}}}}));
  ASSERT_TRUE(g.ok()) << g.message();
  EXPECT_EQ(g->network_topology->highest_tier_allowed, 0);
}

TEST(PodGroup, ErrorsNameTheField) {
  struct Case {
    json spec;
    const char* names;
  } cases[] = {
      {{{"networkTopology", {{"highestTierAllowed", 1}, {"highestTierName", "leaf"}}}},
       "spec.networkTopology: highestTierAllowed and highestTierName are both set"},
      {{{"networkTopology", {{"highestTierAllowed", -1}}}}, "spec.networkTopology.highestTierAllowed: -1 is below 0"},
      {{{"networkTopology", {{"highestTierAllowed", "2"}}}}, "spec.networkTopology.highestTierAllowed: \"2\" is not an integer"},
      {{{"networkTopology", {{"highestTierName", std::string(254, 'a')}}}}, "spec.networkTopology.highestTierName: longer than 253"},
      {{{"networkTopology", {{"mode", "strict"}}}}, "spec.networkTopology.mode: \"strict\" is not hard or soft"},
      {{{"networkTopology", {{"tier", 1}}}}, "spec.networkTopology.tier: unknown field"},
      {{{"networkTopology", "hard"}}, "spec.networkTopology: \"hard\" is not a map"},
      {{{"minMember", -1}}, "spec.minMember: -1 is below 0"},
      {{{"minMember", 1.5}}, "spec.minMember: 1.5 is not an integer"},
      {{{"minMember", 4294967296LL}}, "spec.minMember: 4294967296 is out of range"},
      {{{"minMember", "3"}}, "spec.minMember: \"3\" is not an integer"},
      {{{"minTaskMember", {{"worker", -2}}}}, "spec.minTaskMember.worker: -2 is below 0"},
      {{{"minTaskMember", 3}}, "spec.minTaskMember: not a map"},
      {{{"minResources", {{"cpu", "lots"}}}}, "spec.minResources: "},
      {{{"queue", ""}}, "spec.queue: '' is not a DNS-1123 subdomain"},
      {{{"queue", 7}}, "spec.queue: 7 is not a string"},
      {{{"priorityClassName", 7}}, "spec.priorityClassName: 7 is not a string"},
      {{{"subGroupPolicy", json::object()}}, "spec.subGroupPolicy: not a list"},
      {{{"subGroupPolicy", json::array({{{"minSubGroups", -1}}})}}, "spec.subGroupPolicy[0].minSubGroups: -1 is below 0"},
      {{{"subGroupPolicy", json::array({{{"networkTopology", {{"highestTierAllowed", 1}, {"highestTierName", "x"}}}}})}},
       "spec.subGroupPolicy[0].networkTopology: highestTierAllowed and highestTierName are both set"},
      {{{"subGroupPolicy", json::array({{{"size", 2}}})}}, "spec.subGroupPolicy[0].size: unknown field"},
  };
  for (const auto& c : cases) {
    auto g = parse_podgroup(group(c.spec));
    ASSERT_FALSE(g.ok()) << c.spec.dump();
    EXPECT_NE(g.message().find(std::string("PodGroup ml/train: ") + c.names), std::string::npos)
        << c.spec.dump() << " -> " << g.message();
  }
  auto wrong = parse_podgroup(group(json::object(), {{"weft.dev/ib-cluster", "yes"}}));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("metadata.annotations.weft.dev/ib-cluster: 'yes' is not 'same'"), std::string::npos)
      << wrong.message();
  EXPECT_FALSE(parse_podgroup(json::array()).ok());
  auto bad_spec = group(json::object());
  bad_spec["spec"] = "x";
  EXPECT_FALSE(parse_podgroup(bad_spec).ok());
}

TEST(PodGroup, DnsSubdomain) {
  for (const std::string& ok : {std::string("a"), std::string("default"), std::string("team-a"), std::string("a.b-c.d"),
                                std::string("0"), std::string(253, 'a')})
    EXPECT_TRUE(valid_dns_subdomain(ok)) << ok;
  for (const std::string& bad : {std::string(""), std::string("-a"), std::string("a-"), std::string("a..b"), std::string(".a"),
                                 std::string("a."), std::string("A"), std::string("a_b"), std::string("a b"), std::string(254, 'a')})
    EXPECT_FALSE(valid_dns_subdomain(bad)) << bad;
}

}  // namespace
}  // namespace weft::kube
