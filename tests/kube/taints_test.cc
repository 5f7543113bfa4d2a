#include "kube/taints.h"

#include <gtest/gtest.h>

namespace weft::kube {
namespace {

using nlohmann::json;

TEST(Taints, OperatorsAndEffects) {
  Taint cp{"node-role.kubernetes.io/control-plane", "", "NoSchedule"};
  Taint gpu{"nvidia.com/gpu", "present", "NoExecute"};
  EXPECT_TRUE((Toleration{"node-role.kubernetes.io/control-plane", "Exists", "", ""}).tolerates(cp));
  EXPECT_TRUE((Toleration{"", "Exists", "", ""}).tolerates(gpu));
  EXPECT_TRUE((Toleration{"nvidia.com/gpu", "Equal", "present", "NoExecute"}).tolerates(gpu));
  EXPECT_FALSE((Toleration{"nvidia.com/gpu", "Equal", "absent", ""}).tolerates(gpu));
  EXPECT_FALSE((Toleration{"nvidia.com/gpu", "Exists", "", "NoSchedule"}).tolerates(gpu));
  EXPECT_FALSE((Toleration{"", "Equal", "", ""}).tolerates(gpu));
}

TEST(Taints, FirstUntoleratedHardTaintIgnoresPreferNoSchedule) {
  std::vector<Taint> taints{{"soft", "", "PreferNoSchedule"}, {"hard", "x", "NoSchedule"}};
  auto t = first_untolerated_hard_taint(taints, {});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->key, "hard");
  EXPECT_FALSE(first_untolerated_hard_taint(taints, {{"hard", "Equal", "x", ""}}).has_value());
}

TEST(Taints, ParseFromObjects) {
  auto node = json::parse(R"({"spec":{"taints":[{"key":"a","value":"b","effect":"NoSchedule"}]}})");
  auto taints = taints_of_node(node);
  ASSERT_TRUE(taints.ok());
  ASSERT_EQ(taints->size(), 1u);
  EXPECT_EQ((*taints)[0].value, "b");
  auto bad = taints_of_node(json::parse(R"({"spec":{"taints":[{"key":"a","effect":"Sometimes"}]}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("spec.taints[0].effect"), std::string::npos);
  auto pod = json::parse(R"({"spec":{"tolerations":[{"operator":"Exists"},{"key":"k","value":"v","effect":"NoExecute","tolerationSeconds":30}]}})");
  auto tols = tolerations_of_pod(pod);
  ASSERT_TRUE(tols.ok());
  EXPECT_EQ(tols->size(), 2u);
  EXPECT_EQ((*tols)[1].toleration_seconds.value_or(0), 30);
  EXPECT_FALSE(tolerations_of_pod(json::parse(R"({"spec":{"tolerations":[{"key":"k","operator":"Like"}]}})")).ok());
  EXPECT_FALSE(tolerations_of_pod(json::parse(R"({"spec":{"tolerations":[{"operator":"Equal","value":"v"}]}})")).ok());
}

}  // namespace
}  // namespace weft::kube
