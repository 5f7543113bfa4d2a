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

// Builds as `run` does: what is refused is left out, its message in `skipped`.
Result<GlobalState> build_leaving_out(const std::vector<json>& objects, std::vector<std::string>& skipped) {
  GlobalBuilder builder;
  for (size_t i = 0; i < objects.size(); ++i) {
    auto st = builder.add(objects[i], "object " + std::to_string(i));
    EXPECT_TRUE(st) << st.message();
  }
  return builder.build(&skipped);
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

// Found by the global_objects fuzz target: the error replaced the binding (and the list
// of its clusters) while that list was still being walked, a use after free (ASan).
TEST(GlobalObjects, BindingToTwoClustersWithoutClusterObjects) {
  auto o = base();
  json b = binding("ml", "train", 2, "2026-01-01T00:00:00Z", "m8");
  b["spec"]["clusters"].push_back({{"name", "m9"}, {"replicas", 1}});
  o.push_back(b);
  std::string e = error_of(o);
  EXPECT_NE(e.find("(ResourceBinding ml/train-job): spec.clusters: cluster 'm8' has no Cluster object"), std::string::npos) << e;
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
  std::vector<std::string> skipped;
  auto state = build_leaving_out(o, skipped);
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

// Every kind the builder reads, each valid: a dispatched Volcano Job, a Deployment and a
// binding of Karmada's replica requirements, a PriorityClass and a member pod of the job.
std::vector<json> every_kind() {
  auto o = base();   // 0 Cluster m1, 1 Node n1, 2 Queue team, 3 Job ml/train
  o.push_back(binding("ml", "train", 2, "2026-01-01T00:00:00Z", "m1"));   // 4
  json web = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", "web"}, {"namespace", "ml"}}},
              {"spec", {{"replicas", 2}, {"template", {{"spec", {{"containers", {{{"name", "w"}}}}}}}}}}};
  o.push_back(web);   // 5
  json web_binding = binding("ml", "web", 2, "2026-01-01T00:00:01Z");
  web_binding["spec"]["resource"] = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}, {"namespace", "ml"}};
  o.push_back(web_binding);   // 6
  json serve = binding("ml", "serve", 2, "2026-01-01T00:00:02Z");
  serve["spec"]["resource"] = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "serve"}, {"namespace", "ml"}};
  serve["spec"]["replicaRequirements"] = {{"resourceRequest", {{"nvidia.com/gpu", "1"}}},
                                          {"nodeClaim", {{"nodeSelector", {{"gpu", "h100"}}}}}};
  o.push_back(serve);   // 7
  o.push_back(priority_class("high", 1000));   // 8
  o.push_back(job_pod("m1", "ml", "train", 0, "n1", 8));   // 9
  return o;
}

struct WrongType {
  size_t object;       // index in every_kind()
  std::string field;   // JSON pointer
  json value;
  std::string error;   // expected in the message, after the object's "(Kind ns/name): "
};

TEST(GlobalObjects, FieldsOfTheWrongTypeAreErrorsNamingTheObjectAndField) {
  ASSERT_EQ(error_of(every_kind()), "");
  const json tolerations = json::parse(R"([{"key": 5, "operator": "Exists"}])");
  const json one_expression = json::parse(R"({"matchExpressions": [{"key": 5, "operator": "In", "values": ["x"]}]})");
  const std::vector<WrongType> cases = {
      {0, "/spec", "m1", "(Cluster m1): spec: not a map"},
      {0, "/spec/region", 5, "(Cluster m1): spec.region: 5 is not a string"},
      {0, "/spec/taints", json::parse(R"([{"key": "a", "effect": 5}])"), "(Cluster m1): spec.taints[0].effect: 5 is not a string"},
      {0, "/status/conditions/0", "Ready", "(Cluster m1): status.conditions[0]: not a map"},
      {0, "/status/conditions/0/type", 5, "(Cluster m1): status.conditions[0].type: 5 is not a string"},
      {0, "/status/conditions/0/status", true, "(Cluster m1): status.conditions[0].status: true is not a string"},
      {0, "/status/conditions/0/reason", json::object(), "(Cluster m1): status.conditions[0].reason: {} is not a string"},
      {1, "/status/allocatable/cpu", json::array(), "(Node n1): status.allocatable: resource 'cpu'"},
      {2, "/spec/priority", "high", "(Queue team): spec.priority: \"high\" is not an integer"},
      {2, "/spec/parent", 5, "(Queue team): spec.parent: not a queue name"},
      {3, "/spec", json::array(), "(Job ml/train): spec: not a map"},
      {3, "/spec/queue", 5, "(Job ml/train): spec.queue: 5 is not a string"},
      {3, "/spec/tasks/0", "worker", "(Job ml/train): spec.tasks[0]: not a map"},
      {3, "/spec/tasks/0/name", 7, "(Job ml/train): spec.tasks[0].name: 7 is not a string"},
      {3, "/spec/tasks/0/replicas", "2", "(Job ml/train): spec.tasks[0].replicas: \"2\" is not a non-negative integer"},
      {3, "/spec/tasks/0/template", json::array(), "(Job ml/train): spec.tasks[0].template: not a map"},
      {3, "/spec/tasks/0/template/spec", "x", "(Job ml/train): spec.tasks[0].template.spec: not a map"},
      {3, "/spec/tasks/0/template/spec/containers/0/resources/requests", "8",
       "(Job ml/train): spec.tasks[0].template: spec.containers[0].resources.requests: resource list is not an object"},
      {3, "/spec/priorityClassName", 1, "(Job ml/train): spec.priorityClassName: 1 is not a string"},
      {3, "/spec/networkTopology", "hard", "(Job ml/train): PodGroup n/g: spec.networkTopology: \"hard\" is not a map"},
      {4, "/spec", "x", "(ResourceBinding ml/train-job): spec: not a map"},
      {4, "/spec/resource", "Job", "(ResourceBinding ml/train-job): spec.resource: not a map"},
      {4, "/spec/resource/kind", 5, "(ResourceBinding ml/train-job): spec.resource.kind: 5 is not a string"},
      {4, "/spec/resource/namespace", json::array(), "(ResourceBinding ml/train-job): spec.resource.namespace: [] is not a string"},
      {4, "/spec/clusters", json::object(), "(ResourceBinding ml/train-job): spec.clusters: not a list"},
      {4, "/spec/clusters/0", "m1", "(ResourceBinding ml/train-job): spec.clusters[0]: not a map"},
      {4, "/spec/clusters/0/name", 1, "(ResourceBinding ml/train-job): spec.clusters[0].name: 1 is not a string"},
      {4, "/spec/suspension", true, "(ResourceBinding ml/train-job): spec.suspension: not a map"},
      {4, "/spec/placement", "m1", "(ResourceBinding ml/train-job): spec.placement: not a map"},
      {4, "/spec/placement/clusterAffinities", json::object(),
       "(ResourceBinding ml/train-job): spec.placement.clusterAffinities: not a list"},
      {4, "/spec/placement/clusterAffinity/fieldSelector", "zone=a",
       "(ResourceBinding ml/train-job): spec.placement.clusterAffinity.fieldSelector: not a map"},
      {4, "/spec/placement/clusterAffinity/fieldSelector", one_expression,
       "(ResourceBinding ml/train-job): spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].key: 5 is not a string"},
      {4, "/spec/placement/clusterTolerations", tolerations,
       "(ResourceBinding ml/train-job): spec.placement.clusterTolerations: spec.tolerations[0].key: 5 is not a string"},
      {4, "/spec/placement/replicaScheduling", "Divided",
       "(ResourceBinding ml/train-job): spec.placement.replicaScheduling: not a map"},
      {4, "/spec/placement/spreadConstraints", json::array({5}),
       "(ResourceBinding ml/train-job): spec.placement.spreadConstraints[0]: not a map"},
      {5, "/spec/replicas", "2", "(Deployment ml/web): spec.replicas: \"2\" is not a non-negative integer"},
      {5, "/spec/template", "pod", "(Deployment ml/web): spec.template: not a map"},
      {5, "/spec/template/spec/priorityClassName", 5, "(Deployment ml/web): spec.template.spec.priorityClassName: 5 is not a string"},
      {7, "/spec/replicas", "2", "(ResourceBinding ml/serve-job): spec.replicas: \"2\" is not a non-negative integer"},
      {7, "/spec/replicaRequirements", "gpu", "(ResourceBinding ml/serve-job): spec.replicaRequirements: not a map"},
      {7, "/spec/replicaRequirements/resourceRequest", "8",
       "(ResourceBinding ml/serve-job): spec.replicaRequirements.resourceRequest: not a map"},
      {7, "/spec/replicaRequirements/nodeClaim/nodeSelector", json::array({"gpu"}),
       "(ResourceBinding ml/serve-job): spec.replicaRequirements.nodeClaim.nodeSelector: not a map"},
      {7, "/spec/replicaRequirements/nodeClaim/tolerations", json::object(),
       "(ResourceBinding ml/serve-job): spec.replicaRequirements.nodeClaim.tolerations: not a list"},
      {8, "/value", "high", "(PriorityClass high): value: \"high\" is not an integer"},
  };
  for (const auto& c : cases) {
    auto o = every_kind();
    o[c.object][json::json_pointer(c.field)] = c.value;
    std::string e = error_of(o);
    EXPECT_NE(e.find("document " + std::to_string(c.object + 1) + " " + c.error), std::string::npos)
        << c.field << " = " << c.value.dump() << ": " << e;
  }
}

TEST(GlobalObjects, AnOwnerReferenceOfTheWrongTypeReadsAsAbsent) {
  auto o = every_kind();
  o[9]["metadata"]["labels"].erase("volcano.sh/job-name");
  o[9]["metadata"]["ownerReferences"] = json::parse(R"(["Job", {"kind": 5, "name": {}}, {"kind": "Job", "name": "train"}])");
  EXPECT_EQ(error_of(o), "");
}

// Objects that do not come from a file (the watch hands them over as the API returns them).
TEST(GlobalObjects, KindApiVersionAndObjectOfTheWrongTypeAreErrors) {
  GlobalBuilder builder;
  json c = cluster("m1");
  c["kind"] = json::object();
  EXPECT_EQ(builder.add(c, "watch").message(), "watch: kind: {} is not a string");
  c = cluster("m1");
  c["apiVersion"] = 5;
  EXPECT_EQ(builder.add(c, "watch").message(), "watch: apiVersion: 5 is not a string");
  EXPECT_EQ(builder.add(json::array({1}), "watch").message(), "watch: not an object");
  EXPECT_EQ(builder.add("Cluster", "").message(), "not an object");
}

TEST(GlobalObjects, ReplicasBeyondWhatABindingMayHaveAreRefused) {
  auto o = every_kind();
  o[5]["spec"]["replicas"] = 2000000000;
  EXPECT_NE(error_of(o).find("(Deployment ml/web): spec.replicas: 2000000000 is above the 100000 replicas a binding may have"),
            std::string::npos) << error_of(o);
  o = every_kind();
  o[7]["spec"]["replicas"] = INT32_MAX;
  EXPECT_NE(error_of(o).find("(ResourceBinding ml/serve-job): spec.replicas: 2147483647 is above the 100000"),
            std::string::npos) << error_of(o);
  o = every_kind();
  o[3]["spec"]["tasks"].push_back(o[3]["spec"]["tasks"][0]);
  o[3]["spec"]["tasks"][1]["replicas"] = 99999;
  EXPECT_NE(error_of(o).find("spec.tasks[1].replicas: 99999 (after 2 in earlier tasks) is above the 100000"),
            std::string::npos) << error_of(o);
}

// In run mode a refused binding is left out whole, with its message, and the rest is built.
TEST(GlobalObjects, ABindingOfTheWrongShapeIsLeftOutWhole) {
  auto o = every_kind();
  o[6]["spec"]["placement"] = json::parse(R"({"spreadConstraints": [{"minGroups": 1}, "x"]})");
  o[4]["spec"]["clusters"].push_back("m2");
  std::vector<std::string> skipped;
  auto state = build_leaving_out(o, skipped);
  ASSERT_TRUE(state) << state.message();
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0], "object 4: spec.clusters[1]: not a map");
  EXPECT_EQ(skipped[1], "object 6: spec.placement.spreadConstraints[1]: not a map");
  ASSERT_EQ(state->bindings.size(), 1u);
  EXPECT_EQ(state->bindings[0].key, "ml/serve-job");
  EXPECT_EQ(state->pod_owners["m1"].size(), 0u);   // its pod's binding was left out
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


// tests/global/scenarios/every-kind.yaml (the global_objects fuzz seed) is valid throughout.
TEST(GlobalObjects, EveryKindScenarioBuildsAndDispatches) {
  auto objects = kube::load_objects_file(std::string(WEFT_SOURCE_DIR) + "/tests/global/scenarios/every-kind.yaml");
  ASSERT_TRUE(objects) << objects.message();
  GlobalBuilder builder;
  for (const auto& so : *objects) {
    auto st = builder.add(so.object, so.where());
    ASSERT_TRUE(st) << st.message();
  }
  std::vector<std::string> skipped;
  auto state = builder.build(&skipped);
  ASSERT_TRUE(state) << state.message();
  EXPECT_TRUE(skipped.empty()) << skipped.front();
  ASSERT_EQ(state->bindings.size(), 3u);
  const BindingInfo& train = state->bindings[1];
  EXPECT_EQ(train.key, "ml/train-job");
  EXPECT_EQ(train.gang.priority, 1000);
  EXPECT_TRUE(train.gang.same_ib_cluster);
  EXPECT_EQ(train.affinity_groups.size(), 2u);
  EXPECT_EQ(state->clusters.at("m1").fields.at("region"), "us-east-1");
  EXPECT_EQ(state->pod_owners.at("m1").at("ml/web-5d8f-0").first, "ml/web-deployment");
  EXPECT_EQ(state->members.at("m2").hypernodes.size(), 1u);
  EXPECT_EQ(dispatch(*state).bindings.size(), 3u);
}

}  // namespace
}  // namespace weft::scheduler::global::testing
