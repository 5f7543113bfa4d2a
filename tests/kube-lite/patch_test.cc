#include "tools/kube-lite/patch.h"

#include <gtest/gtest.h>

namespace weft::kube_lite {
namespace {

using nlohmann::json;

TEST(KubeLitePatch, FormatsByContentType) {
  EXPECT_EQ(patch_format("application/merge-patch+json"), PatchFormat::Merge);
  EXPECT_EQ(patch_format("application/strategic-merge-patch+json; charset=utf-8"), PatchFormat::StrategicMerge);
  EXPECT_EQ(patch_format("application/json-patch+json"), PatchFormat::Json);
  EXPECT_EQ(patch_format("application/apply-patch+yaml"), PatchFormat::Apply);
  EXPECT_EQ(patch_format("application/json"), PatchFormat::Unknown);
}

TEST(KubeLitePatch, MergePatchMergesMapsDeletesNullsReplacesLists) {
  json node = {{"metadata", {{"labels", {{"a", "1"}, {"b", "2"}}}}}, {"spec", {{"taints", {{{"key", "x"}}}}}}};
  json patched = merge_patch(node, {{"metadata", {{"labels", {{"a", nullptr}, {"c", "3"}}}}},
                                    {"spec", {{"taints", json::array()}}}});
  EXPECT_EQ(patched["metadata"]["labels"], json({{"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(patched["spec"]["taints"], json::array());
}

TEST(KubeLitePatch, StrategicMergesContainersByNameAndKeepsOthers) {
  json pod = {{"spec",
               {{"containers",
                 {{{"name", "a"}, {"image", "a:1"}, {"env", {{{"name", "X"}, {"value", "1"}}}}},
                  {{"name", "b"}, {"image", "b:1"}}}},
                {"tolerations", {{{"key", "t1"}}}}}}};
  json patch = {{"spec",
                 {{"containers", {{{"name", "a"}, {"image", "a:2"}, {"env", {{{"name", "Y"}, {"value", "2"}}}}},
                                  {{"name", "c"}, {"image", "c:1"}}}},
                  {"tolerations", {{{"key", "t2"}}}}}}};
  auto r = strategic_merge_patch(pod, patch);
  ASSERT_TRUE(r) << r.message();
  const auto& cs = (*r)["spec"]["containers"];
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0]["image"], "a:2");
  EXPECT_EQ(cs[0]["env"].size(), 2u);  // env merged by name too
  EXPECT_EQ(cs[1]["name"], "b");
  EXPECT_EQ(cs[2]["name"], "c");
  // tolerations have no merge key: replaced
  EXPECT_EQ((*r)["spec"]["tolerations"], json({{{"key", "t2"}}}));
}

TEST(KubeLitePatch, StrategicDirectives) {
  json obj = {{"metadata", {{"finalizers", {"a", "b"}}, {"labels", {{"x", "1"}}}}},
              {"spec", {{"containers", {{{"name", "a"}}, {{"name", "b"}}, {{"name", "c"}}}}}}};
  json patch = {{"metadata", {{"$deleteFromPrimitiveList/finalizers", {"a"}}, {"finalizers", {"z"}}}},
                {"spec",
                 {{"$setElementOrder/containers", {{{"name", "c"}}, {{"name", "a"}}}},
                  {"containers", {{{"name", "b"}, {"$patch", "delete"}}}}}}};
  auto r = strategic_merge_patch(obj, patch);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ((*r)["metadata"]["finalizers"], json({"b", "z"}));
  EXPECT_EQ((*r)["spec"]["containers"], json({{{"name", "c"}}, {{"name", "a"}}}));
  auto replaced = strategic_merge_patch(obj, {{"metadata", {{"labels", {{"$patch", "replace"}, {"y", "2"}}}}}});
  ASSERT_TRUE(replaced);
  EXPECT_EQ((*replaced)["metadata"]["labels"], json({{"y", "2"}}));
  auto retained = strategic_merge_patch({{"spec", {{"a", 1}, {"b", 2}}}},
                                        {{"spec", {{"$retainKeys", {"b", "c"}}, {"c", 3}}}});
  ASSERT_TRUE(retained);
  EXPECT_EQ((*retained)["spec"], json({{"b", 2}, {"c", 3}}));
  auto bad = strategic_merge_patch(obj, {{"spec", {{"containers", {{{"image", "no-name"}}}}}}});
  EXPECT_FALSE(bad);
}

TEST(KubeLitePatch, JsonPatchAppliesOperationsAndReportsFailures) {
  json node = {{"metadata", {{"labels", {{"a", "1"}}}}}};
  auto r = json_patch(node, json::parse(R"([{"op":"add","path":"/metadata/labels/b","value":"2"},
                                            {"op":"remove","path":"/metadata/labels/a"}])"));
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ((*r)["metadata"]["labels"], json({{"b", "2"}}));
  auto failed = json_patch(node, json::parse(R"([{"op":"remove","path":"/metadata/labels/zzz"}])"));
  EXPECT_FALSE(failed);
  EXPECT_FALSE(json_patch(node, json::object()));
}

}  // namespace
}  // namespace weft::kube_lite
