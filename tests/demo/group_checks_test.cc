// weft-demo-report's checks of the LLM-shaped demo jobs on hand-made dumps: a Kubernetes
// PodGroup with a topology key, and Volcano sub-groups of a hard tier; each claim holds on
// a good placement and each broken claim is named.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tools/demo/report/group_checks.h"

namespace {

using nlohmann::json;

json node(const std::string& name, const std::string& leaf) {
  return {{"metadata", {{"name", name}, {"labels", {{"weft.dev/ib-fabric", "f1"}, {"weft.dev/ib-leaf", leaf},
                                                     {"weft.dev/ib-spine", "s1"}}}}}};
}

json nodes() { return {{"items", {node("x1", "x"), node("x2", "x"), node("y1", "y")}}}; }

json list(json items) { return {{"items", std::move(items)}}; }

json native_pod(const std::string& name, const std::string& group, const std::string& on) {
  json p = {{"metadata", {{"name", name}, {"namespace", "llm"}}},
            {"spec", {{"schedulingGroup", {{"podGroupName", group}}}}}};
  if (!on.empty()) p["spec"]["nodeName"] = on;
  return p;
}

json native_group(const std::string& scheduled) {
  json g = {{"apiVersion", "scheduling.k8s.io/v1beta1"}, {"kind", "PodGroup"},
            {"metadata", {{"name", "ranks"}, {"namespace", "llm"}}},
            {"spec", {{"schedulingPolicy", {{"gang", {{"minCount", 2}}}}},
                      {"schedulingConstraints", {{"topology", {{{"key", "weft.dev/ib-leaf"}}}}}}}}};
  if (!scheduled.empty())
    g["status"] = {{"conditions", {{{"type", "PodGroupInitiallyScheduled"}, {"status", scheduled}}}}};
  return g;
}

std::string joined(const weft::demo::Problems& problems) {
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  return out;
}

TEST(DemoGroups, NativeGroupInOneDomainAndScheduledHolds) {
  json seen;
  auto problems = weft::demo::check_native_groups(
      nodes(), list({native_pod("r0", "ranks", "x1"), native_pod("r1", "ranks", "x2")}), list({native_group("True")}),
      seen);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  EXPECT_EQ(seen["llm/ranks"]["domains"], json({"x"}));
}

TEST(DemoGroups, NativeGroupClaimsThatDoNotHoldAreNamed) {
  json seen;
  auto across = weft::demo::check_native_groups(
      nodes(), list({native_pod("r0", "ranks", "x1"), native_pod("r1", "ranks", "y1")}), list({native_group("True")}),
      seen);
  EXPECT_NE(joined(across).find("2 domains"), std::string::npos) << joined(across);
  auto short_of = weft::demo::check_native_groups(
      nodes(), list({native_pod("r0", "ranks", "x1"), native_pod("r1", "ranks", "")}), list({native_group("False")}),
      seen);
  EXPECT_NE(joined(short_of).find("below minCount 2"), std::string::npos) << joined(short_of);
  EXPECT_NE(joined(short_of).find("not True"), std::string::npos) << joined(short_of);
}

json tp_pod(const std::string& name, const std::string& partition, const std::string& on) {
  return {{"metadata", {{"name", name}, {"namespace", "llm"},
                        {"labels", {{"volcano.sh/partition-id", partition}}},
                        {"annotations", {{"scheduling.k8s.io/group-name", "tp"}}}}},
          {"spec", {{"nodeName", on}}}};
}

json tp_group() {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
          {"metadata", {{"name", "tp"}, {"namespace", "llm"}}},
          {"spec", {{"minMember", 4},
                    {"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 2}}},
                    {"subGroupPolicy", {{{"name", "tp"}, {"subGroupSize", 2},
                                         {"matchLabelKeys", {"volcano.sh/partition-id"}},
                                         {"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}}}}}}};
}

TEST(DemoGroups, EachSubGroupInOneLeafHoldsAndASplitOneIsNamed) {
  json seen;
  auto good = weft::demo::check_sub_groups(
      nodes(), list({tp_pod("t0", "0", "x1"), tp_pod("t1", "0", "x2"), tp_pod("t2", "1", "y1"), tp_pod("t3", "1", "y1")}),
      list({tp_group()}), seen);
  EXPECT_TRUE(good.empty()) << joined(good);
  EXPECT_EQ(seen["llm/tp"]["tp"]["1"]["domains"], json({"y"}));
  auto split = weft::demo::check_sub_groups(
      nodes(), list({tp_pod("t0", "0", "x1"), tp_pod("t1", "0", "y1"), tp_pod("t2", "1", "y1"), tp_pod("t3", "1", "y1")}),
      list({tp_group()}), seen);
  EXPECT_NE(joined(split).find("sub-group tp=0 spans 2"), std::string::npos) << joined(split);
  json other_spine = nodes();
  other_spine["items"][2]["metadata"]["labels"]["weft.dev/ib-spine"] = "s2";
  auto across = weft::demo::check_sub_groups(
      other_spine,
      list({tp_pod("t0", "0", "x1"), tp_pod("t1", "0", "x2"), tp_pod("t2", "1", "y1"), tp_pod("t3", "1", "y1")}),
      list({tp_group()}), seen);
  EXPECT_NE(joined(across).find("hard tier 2, but its pods sit in 2"), std::string::npos) << joined(across);
}

}  // namespace
