// A Pod decoded straight from its text (the run cache's path) is the Pod decoded from its
// tree (scenarios, simulate): the same PodInfo for every pod of the scenario suite and for
// pods shaped as a real API server writes them, and the same inputs refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "kube/scenario.h"
#include "scheduler/core/pod_fields.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

// Every field of a PodInfo the core reads, as text; constraints by what they decode to.
std::string describe(const PodInfo& p, const std::string& constraints) {
  json out = {{"key", p.key},
              {"namespace", std::string(p.namespace_name)},
              {"name", p.name},
              {"group", std::string(p.group)},
              {"request", kube::to_json(p.request)},
              {"priority", p.priority},
              {"priority_class", std::string(p.priority_class)},
              {"node", std::string(p.node)},
              {"phase", std::string(p.phase)},
              {"scheduler", std::string(p.scheduler_name)},
              {"terminating", p.terminating},
              {"preemptable", p.preemptable ? json(*p.preemptable) : json()},
              {"task_role", std::string(p.task_role)},
              {"scheduled_at", p.scheduled_at ? json(p.scheduled_at->time_since_epoch().count()) : json()},
              {"tolerations", p.tolerations().size()},
              {"affinity_empty", p.affinity().empty()},
              {"labels", p.labels.size()},
              {"gated", p.scheduling_gated},
              {"claims", p.resource_claims},
              {"host_ports", p.contract().host_ports.size()},
              {"spread", p.contract().spread.size()},
              {"pod_affinity", p.contract().affinity.size() + p.contract().anti_affinity.size()}};
  auto c = constraints_pod(constraints);
  out["constraints"] = c ? *c : json(c.message());
  return out.dump();
}

// Both readers on one pod: equal records, or both refusing it.
void expect_same(const json& pod, const std::string& text) {
  auto tree = pod_fields_of(pod);
  auto raw = pod_fields_of_text(text);
  ASSERT_EQ(tree.ok(), raw.ok()) << (tree ? raw.message() : tree.message()) << "\n" << text;
  if (!tree) return;
  const std::string tree_constraints = tree->constraints, raw_constraints = raw->constraints;
  EXPECT_EQ(tree->uid, raw->uid);
  EXPECT_EQ(tree->resource_version, raw->resource_version);
  EXPECT_EQ(tree->created, raw->created);
  auto a = pod_info_from(std::move(*tree));
  auto b = pod_info_from(std::move(*raw));
  ASSERT_EQ(a.ok(), b.ok()) << (a ? b.message() : a.message()) << "\n" << text;
  if (!a) return;
  EXPECT_EQ(describe(*a, tree_constraints), describe(*b, raw_constraints)) << text;
}

TEST(SchedulerPodFields, TextAndTreeGiveTheSamePodForEveryScenarioPod) {
  size_t pods = 0;
  for (const char* dir : {"/tests/scheduler/scenarios", "/tests/scheduler-run/scenarios", "/examples"}) {
    const std::string path = std::string(WEFT_SOURCE_DIR) + dir;
    if (!std::filesystem::exists(path)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.path().extension() != ".yaml") continue;
      auto objects = kube::load_objects_file(entry.path().string());
      if (!objects) continue;   // not a scenario
      for (const auto& o : *objects) {
        if (o.object.value("kind", "") != "Pod") continue;
        ++pods;
        SCOPED_TRACE(o.where());
        expect_same(o.object, o.object.dump());
        expect_same(o.object, o.object.dump(2));   // whitespace anywhere
      }
    }
  }
  EXPECT_GT(pods, 50u);
}

// A pod as kube-apiserver writes it: every field the core reads, and much it does not.
json api_pod() {
  return json::parse(R"({
    "kind": "Pod", "apiVersion": "v1",
    "metadata": {"name": "train-0", "namespace": "ml", "uid": "u-1", "resourceVersion": "42",
      "creationTimestamp": "2026-11-25T08:00:00Z", "deletionTimestamp": "2026-11-25T09:00:00Z",
      "labels": {"app": "train", "volcano.sh/task-spec": "worker", "volcano.sh/preemptable": "true"},
      "annotations": {"scheduling.k8s.io/group-name": "train", "volcano.sh/preemptable": "False",
        "kubectl.kubernetes.io/last-applied-configuration": "{\"a\":\"\\u00e9\"}"},
      "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "train", "controller": true}],
      "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:metadata": {"f:labels": {}}}}]},
    "spec": {
      "schedulerName": "volcano", "priorityClassName": "high", "priority": 1000, "nodeName": "gpu-7",
      "nodeSelector": {"weft.dev/ib-cluster": "a"},
      "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
      "affinity": {"podAntiAffinity": {}, "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}]}}},
      "initContainers": [
        {"name": "setup", "image": "x", "resources": {"requests": {"cpu": "4", "memory": "1Gi"}}},
        {"name": "proxy", "image": "y", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}}],
      "containers": [
        {"name": "main", "image": "z", "env": [{"name": "A", "value": "b"}],
         "resources": {"limits": {"nvidia.com/gpu": 8, "cpu": "96"}, "requests": {"cpu": "90", "memory": "1500Mi"}}}],
      "overhead": {"cpu": "250m"},
      "volumes": [{"name": "v", "emptyDir": {}}]},
    "status": {"phase": "Running", "startTime": "2026-11-25T08:00:05Z",
      "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-25T08:01:00Z"},
                     {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-25T08:00:01Z"}],
      "containerStatuses": [{"name": "main", "ready": true}]}})");
}

TEST(SchedulerPodFields, TextReadsAnApiServersPodAsTheTreeDoes) {
  const json pod = api_pod();
  expect_same(pod, pod.dump());
  auto raw = pod_fields_of_text(pod.dump());
  ASSERT_TRUE(raw.ok()) << raw.message();
  auto p = pod_info_from(std::move(*raw));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->key, "ml/train-0");
  EXPECT_EQ(p->group, "ml/train");
  EXPECT_EQ(p->task_role, "worker");
  ASSERT_TRUE(p->preemptable.has_value());
  EXPECT_FALSE(*p->preemptable);   // the annotation wins over the label
  EXPECT_TRUE(p->terminating);
  EXPECT_EQ(p->node, "gpu-7");
  EXPECT_EQ(p->priority, 1000);
  // 90 cpu + the 0.5 cpu sidecar beside them (above the 4.5 cpu init peak) + 0.25 overhead.
  EXPECT_EQ(p->request.at("cpu"), 90750);
  EXPECT_EQ(p->request.at("nvidia.com/gpu"), 8000);
  EXPECT_EQ(p->tolerations().size(), 1u);
  EXPECT_FALSE(p->affinity().empty());
  ASSERT_TRUE(p->scheduled_at.has_value());
}

// What a tree keeps of a key met twice (the last) and of escaped text, the text reader
// keeps too; fields of the wrong type are refused by both, naming the field.
TEST(SchedulerPodFields, DuplicatesEscapesAndWrongTypesAsTheTreeReadsThem) {
  const std::vector<std::string> texts = {
      R"({"metadata":{"name":"a","name":"b","annotations":{"volcano.sh/task-spec":"x","volcano.sh/task-spec":"y"}}})",
      R"({"metadata":{"name":"a"},"metadata":{"name":"b"}})",
      R"({"metadata":{"name":"a"},"spec":{"containers":[{"resources":{"requests":{"cpu":"1"}}}],"containers":[]}})",
      R"({"metadata":{"name":"a"},"spec":{"affinity":{"nodeAffinity":{}},"affinity":null}})",
      R"({"metadata":{"name":"a"},"status":{"conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z"}],"conditions":5}})",
      R"({"metadata":{"name":"a\u002fb","namespace":"n\u00e9"},"spec":{"nodeName":"\ud83d\ude00"}})",
      R"({"metadata":{"name":"a","labels":{"volcano.sh/preemptable":null}},"spec":{"priority":"7"}})",
      R"({"metadata":{"name":5}})",
      // A field met twice whose first value is bad: a tree keeps only the last (fuzz).
      R"({"metadata":{"name":"p"},"spec":{"nodeName":5,"nodeName":"a"}})",
      R"({"metadata":{"name":5,"name":"p"}})",
      R"({"metadata":{"name":"p"},"status":{"phase":5,"phase":"Running"}})",
      R"({"metadata":{"name":"p"},"spec":{"containers":5,"containers":[]}})",
      R"({"metadata":{"name":"p"},"spec":{"overhead":{"cpu":"x"},"overhead":{}}})",
      R"({"metadata":{"name":"p"},"spec":{"overhead":{"cpu":"x","cpu":"1"}}})",
      R"({"metadata":{"name":"p"},"spec":{"containers":[{"resources":{"requests":{"cpu":"x"},"requests":{}}}]}})",
      R"({"metadata":{"name":"p","annotations":{"volcano.sh/preemptable":1,"volcano.sh/preemptable":"true"}}})",
      R"({"metadata":{"name":"a","annotations":{"scheduling.k8s.io/group-name":7}}})",
      R"({"metadata":{"name":"a","annotations":[]}})",
      R"({"metadata":{"name":"a"},"spec":{"nodeName":["x"]}})",
      // The pod contract: every label, gates, claims, pod-level resources, host ports of
      // containers and sidecars (not of plain init containers), spread, pod affinity.
      R"({"metadata":{"name":"a","labels":{"app":"x","tier":"y"}},"spec":{"schedulingGates":[{"name":"g"}],"resourceClaims":[],"resources":{"requests":{"cpu":"2"}},"containers":[{"ports":[{"containerPort":80,"hostPort":9000,"protocol":"UDP"}],"resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"restartPolicy":"Always","ports":[{"hostPort":81}]},{"ports":[{"hostPort":82}]}],"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{}}],"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"zone"}]}}}})",
      R"({"metadata":{"name":"a"},"spec":{"topologySpreadConstraints":[{"maxSkew":0,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}})",
      R"({"metadata":{"name":"a"},"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{}}]}}}})",
      R"({"metadata":{"name":"a"},"spec":{"containers":[{"ports":[{"hostPort":"x"}]}]}})",
      R"({"metadata":{"name":"a"},"spec":{"containers":{}}})",
      R"({"metadata":{"name":"a"},"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}})",
      R"({"metadata":{"name":"a"},"spec":{"containers":[{"resources":{"limits":[1]}}]}})",
      R"({"metadata":{"name":"a"},"spec":{"initContainers":[{"restartPolicy":1}]}})",
      R"({"metadata":{"name":"a"},"spec":{"priority":"high"}})",
      R"({"metadata":{"name":"a"},"spec":{"tolerations":[{"key":5}]}})",
      R"({"metadata":{"name":"a"},"status":{"phase":1}})",
      R"({"metadata":{"name":"a"},"spec":{"overhead":{"cpu":true}}})",
      R"({"metadata":{"name":"a"}} trailing)",
      R"({"metadata":{"name":"a"})",
      R"([])",
  };
  for (const auto& text : texts) {
    SCOPED_TRACE(text);
    json tree = json::parse(text, nullptr, false);
    if (tree.is_discarded()) {
      EXPECT_FALSE(pod_fields_of_text(text).ok());
      continue;
    }
    expect_same(tree, text);
  }
  auto e = pod_info_of_text(R"({"metadata":{"name":"a"},"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}})",
                            "Pod ns/a");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("Pod ns/a: spec.containers[0].resources.requests: resource 'cpu'"), std::string::npos)
      << e.message();
  e = pod_info_of_text(R"({"metadata":{"name":"a"},"spec":{"nodeName":["x"]}})", "Pod ns/a");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("Pod ns/a: spec.nodeName: [\"x\"] is not a string"), std::string::npos) << e.message();
}

}  // namespace
}  // namespace weft::scheduler
