// Bad control-plane and member objects get errors that name them and the field.
#include <gtest/gtest.h>

#include "kube/scenario.h"
#include "tests/global/global_objects.h"

namespace weft::scheduler::global::testing {
namespace {

std::string error_of(const std::vector<json>& objects) {
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}};
  auto loaded = kube::load_objects_text(list.dump(), "cp.json");
  if (!loaded) return loaded.message();
  GlobalBuilder builder;
  for (const auto& so : *loaded)
    if (auto st = builder.add(so.object, so.where()); !st) return st.message();
  auto state = builder.build();
  return state ? "" : state.message();
}

std::vector<json> base() {
  return {cluster("m1"), gpu_node("m1", "n1"), queue("team", 1), vcjob("ml", "train", "team", 2, 8)};
}

TEST(GlobalObjects, BindingWithoutResourceKind) {
  auto o = base();
  json b = binding("ml", "train", 2, "2026-01-01T00:00:00Z");
  b["spec"]["resource"].erase("kind");
  o.push_back(b);
  std::string e = error_of(o);
  EXPECT_NE(e.find("cp.json: document 5 (ResourceBinding ml/train-job): spec.resource.kind: missing"), std::string::npos) << e;
}

TEST(GlobalObjects, BindingToAClusterWithoutClusterObject) {
  auto o = base();
  o.push_back(binding("ml", "train", 2, "2026-01-01T00:00:00Z", "m9"));
  std::string e = error_of(o);
  EXPECT_NE(e.find("(ResourceBinding ml/train-job): spec.clusters: cluster 'm9' has no Cluster object"), std::string::npos) << e;
}

TEST(GlobalObjects, MissingWorkloadWithoutRequirements) {
  auto o = base();
  o.push_back(binding("ml", "gone", 2, "2026-01-01T00:00:00Z"));
  std::string e = error_of(o);
  EXPECT_NE(e.find("spec.resource: Job ml/gone not found on the control plane"), std::string::npos) << e;
}

TEST(GlobalObjects, BadWorkloadFieldIsNamedThroughTheBinding) {
  auto o = base();
  o[3]["spec"]["minAvailable"] = 5;
  o.push_back(binding("ml", "train", 2, "2026-01-01T00:00:00Z"));
  std::string e = error_of(o);
  EXPECT_NE(e.find("spec.resource (Job ml/train): cp.json: document 4 (Job ml/train): spec.minAvailable: 5 is above"),
            std::string::npos) << e;
}

TEST(GlobalObjects, UnknownQueueAndBadSuspension) {
  auto o = base();
  o[3]["spec"]["queue"] = "nowhere";
  o.push_back(binding("ml", "train", 2, "2026-01-01T00:00:00Z"));
  EXPECT_NE(error_of(o).find("queue 'nowhere' (from Job ml/train) has no Queue object"), std::string::npos);
  o = base();
  json b = binding("ml", "train", 2, "2026-01-01T00:00:00Z");
  b["spec"]["suspension"]["scheduling"] = "yes";
  o.push_back(b);
  EXPECT_NE(error_of(o).find("spec.suspension.scheduling: not a boolean"), std::string::npos);
}

TEST(GlobalObjects, QueueFieldsNotHonouredAcrossClustersAreRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"extendClusters": [{"name": "m1", "weight": 1}]})", "spec.extendClusters: not supported by weft-scheduler global"},
      {R"({"affinity": {"nodeGroupAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": ["a"]}}})",
       "spec.affinity: queue node-group affinity is not supported"},
      {R"({"reclaimable": "no"})", "spec.reclaimable: \"no\" is not a boolean"},
      {R"({"parent": "org"})", "spec.parent: hierarchical queues are not supported"}};
  for (const auto& [fields, message] : cases) {
    auto o = base();
    const json extra = json::parse(fields);
    for (const auto& [k, v] : extra.items()) o[2]["spec"][k] = v;
    std::string e = error_of(o);
    EXPECT_NE(e.find("cp.json: document 3 (Queue team): " + message), std::string::npos) << e;
  }
  // In run mode the Queue is left out, with its message, and the rest is built.
  auto o = base();
  o[2]["spec"]["extendClusters"] = json::array();
  o.push_back(queue("other", 1));
  GlobalBuilder builder;
  for (size_t i = 0; i < o.size(); ++i) ASSERT_TRUE(builder.add(o[i], "object " + std::to_string(i)));
  std::vector<std::string> skipped;
  auto state = builder.build(&skipped);
  ASSERT_TRUE(state) << state.message();
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("object 2: spec.extendClusters"), std::string::npos) << skipped[0];
  EXPECT_EQ(state->queues.count("team"), 0u);
  EXPECT_EQ(state->queues.count("other"), 1u);
}

TEST(GlobalObjects, WeightedDivisionIsRefusedNotIgnored) {
  auto o = base();
  json b = binding("ml", "train", 2, "2026-01-01T00:00:00Z");
  b["spec"]["placement"]["replicaScheduling"] = {{"replicaSchedulingType", "Divided"},
                                                 {"replicaDivisionPreference", "Weighted"}};
  o.push_back(b);
  std::string e = error_of(o);
  EXPECT_NE(e.find("spec.placement.replicaScheduling.replicaDivisionPreference: \"Weighted\" is not supported"),
            std::string::npos) << e;
  b["spec"]["placement"]["replicaScheduling"]["replicaDivisionPreference"] = "Aggregated";
  o.back() = b;
  EXPECT_EQ(error_of(o), "");
}

TEST(GlobalObjects, MemberObjectsNeedAClusterAndTheAnnotation) {
  auto o = base();
  o.push_back(gpu_node("m7", "n7"));
  EXPECT_NE(error_of(o).find("(Node n7): metadata.annotations.weft.dev/member-cluster: member cluster 'm7' has no Cluster object"),
            std::string::npos) << error_of(o);
  o = base();
  json n = gpu_node("m1", "n2");
  n["metadata"].erase("annotations");
  o.push_back(n);
  EXPECT_NE(error_of(o).find("(Node n2): metadata.annotations: a Node needs weft.dev/member-cluster"), std::string::npos);
  o = base();
  o.push_back({{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", {{"name", "s"}}}});
  EXPECT_NE(error_of(o).find("(Service s): kind: 'v1 Service' is not read by weft-scheduler global"), std::string::npos);
}

TEST(GlobalObjects, PlacementFieldsAreCheckedNotIgnored) {
  auto o = base();
  json b = binding("ml", "train", 2, "2026-01-01T00:00:00Z");
  json expr = {{"key", "color"}, {"operator", "In"}, {"values", {"x"}}};
  b["spec"]["placement"]["clusterAffinity"]["fieldSelector"]["matchExpressions"] = json::array({expr});
  o.push_back(b);
  EXPECT_NE(error_of(o).find("spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].key: 'color' is not provider"),
            std::string::npos) << error_of(o);
}

}  // namespace
}  // namespace weft::scheduler::global::testing

namespace weft::scheduler::global::testing {
namespace {

// What `global simulate` prints for tests/global/scenarios/fragmented.yaml.
TEST(GlobalSimulateJson, OneEntryPerBindingAndQueue) {
  auto objects = kube::load_objects_file(std::string(WEFT_SOURCE_DIR) + "/tests/global/scenarios/fragmented.yaml");
  ASSERT_TRUE(objects) << objects.message();
  GlobalBuilder builder;
  for (const auto& so : *objects) ASSERT_TRUE(builder.add(so.object, so.where()));
  auto state = builder.build();
  ASSERT_TRUE(state) << state.message();
  json out = decisions_json(dispatch(*state));
  ASSERT_EQ(out["bindings"].size(), 2u);
  const json& big = out["bindings"][0];
  EXPECT_EQ(big["name"], "ml/big-job");
  EXPECT_EQ(big["queue"], "research");
  EXPECT_EQ(big["suspended"], true);
  EXPECT_EQ(big["clusters"], json::array());
  EXPECT_EQ(big["reason"].get<std::string>().rfind("fragmentation: ", 0), 0u);
  EXPECT_EQ(out["bindings"][1]["clusters"], json::parse(R"([{"name": "m1", "replicas": 4}])"));
  EXPECT_EQ(out["bindings"][1]["suspended"], false);
  ASSERT_EQ(out["queues"].size(), 2u);
  EXPECT_EQ(out["queues"][1]["name"], "research");
  EXPECT_EQ(out["queues"][1]["allocated"]["nvidia.com/gpu"], 16);
  EXPECT_EQ(out["queues"][1]["deserved"]["nvidia.com/gpu"], 32);
}

}  // namespace
}  // namespace weft::scheduler::global::testing
