// DefaultEvictor: the Kubernetes descheduler's defaultevictor_test.go as facts, row by row
// (TestDefaultEvictorFilter, TestDefaultEvictorPreEvictionFilter, the namespace selector
// tests), with upstream's descriptions, beside weft's own cases of the same rules (marked
// "weft's case"). A row gives the DefaultEvictor args as a policy writes them, the objects,
// and what weft's evictor answers for the first pod: "" it may go, else the skip reason.
// Rows where weft deliberately differs say so and assert weft's documented result.
#include <gtest/gtest.h>

#include "descheduler/core/framework/default_evictor.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

// Upstream's test pod: cpu in millicores, memory in bytes, no owner, no priority, no phase.
json tpod(const std::string& name, const std::string& node_name, int cpu_m = 400, int64_t mem = 0) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"nodeName", node_name},
            {"containers",
             json::array({{{"name", "c"},
                           {"resources", {{"requests", {{"cpu", std::to_string(cpu_m) + "m"}, {"memory", std::to_string(mem)}}}}}}})}}}};
}

// Upstream's test node: millicores, bytes, pods; Ready.
json tnode(const std::string& name, int cpu_m = 1000, int64_t mem = 2000, int pods = 13) {
  json n = node(name, {}, std::to_string(cpu_m) + "m", std::to_string(mem), std::to_string(pods));
  n["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
  return n;
}

json owner(json p, const std::string& kind = "Pod", const std::string& uid = "") {
  json ref = {{"apiVersion", "v1"}, {"kind", kind}, {"name", ""}};
  if (!uid.empty()) ref["uid"] = uid;
  p["metadata"]["ownerReferences"].push_back(ref);
  return p;
}
json annotate(json p, const std::string& key, const std::string& value = "true") {
  p["metadata"]["annotations"][key] = value;
  return p;
}
json evict_annotated(json p) { return annotate(std::move(p), "descheduler.alpha.kubernetes.io/evict"); }
json mirror(json p) {
  p = annotate(std::move(p), "kubernetes.io/config.source", "api");
  return annotate(std::move(p), "kubernetes.io/config.mirror", "mirror");
}
json prioritized(json p, int32_t value) {
  p["spec"]["priority"] = value;
  return p;
}
json terminating(json p) {
  p["metadata"]["deletionTimestamp"] = format_rfc3339(t0());
  return p;
}
json priority_class(const std::string& name, int32_t value) {
  return {{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", name}}}, {"value", value}};
}
json failed(json p) {
  p["status"]["phase"] = "Failed";
  return p;
}
json local_storage(json p) {
  p["spec"]["volumes"] = json::array({{{"name", "sample"}, {"hostPath", {{"path", "somePath"}}}, {"emptyDir", {{"sizeLimit", "10"}}}}});
  return p;
}
json with_pvc(json p, const std::vector<std::string>& claims = {"foo"}) {
  p["spec"]["volumes"] = json::array();
  for (const auto& c : claims) p["spec"]["volumes"].push_back({{"name", c}, {"persistentVolumeClaim", {{"claimName", c}}}});
  return p;
}
json labelled(json p, const std::string& key, const std::string& value) {
  p["metadata"]["labels"][key] = value;
  return p;
}
json started_ago(json p, std::chrono::minutes ago) {
  p["status"]["startTime"] = format_rfc3339(t0() - ago);
  return p;
}
json in_namespace(json p, const std::string& ns) {
  p["metadata"]["namespace"] = ns;
  return p;
}
json selecting(json p, const std::string& value) {
  p["spec"]["nodeSelector"] = {{"datacenter", value}};
  return p;
}
json tolerating_gpu(json p) {
  p["spec"]["tolerations"] = json::array({{{"key", "hardware"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  return p;
}
json gpu_tainted(json n) {
  n["spec"]["taints"] = json::array({{{"key", "hardware"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  return n;
}
json east(json n) {
  n["metadata"]["labels"]["datacenter"] = "east";
  return n;
}
json pvc(const std::string& name, const std::string& storage_class) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"storageClassName", storage_class},
                    {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
}
json pdb(const std::string& name, const std::string& app) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", app}}}}}}}};
}
json namespace_object(const std::string& name, std::map<std::string, std::string> labels = {}) {
  labels.emplace("kubernetes.io/metadata.name", name);   // the API server sets it on every Namespace
  json n = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}, {"labels", json::object()}}}};
  for (const auto& [k, v] : labels) n["metadata"]["labels"][k] = v;
  return n;
}

// The policy's DefaultEvictor args, written as a policy writes them (YAML flow).
Policy evictor_policy(const std::string& args) {
  auto p = parse_policy_text(evictor_policy_text(args), "policy.yaml");
  EXPECT_TRUE(p.ok()) << args << ": " << p.message();
  return p.ok() ? *p : Policy{};
}

enum class Point { Filter, PreEvictionFilter };

struct Row {
  const char* intent;
  const char* args;            // DefaultEvictorArgs
  std::vector<json> objects;   // beside node1; the first Pod is the one asked about
  std::string want;            // "" may be evicted, else weft's reason
};

// The evictor's answer at `point` for the first pod of `objects`, on a cluster of node1
// (where upstream's pods run) and the row's objects.
std::string answer(Point point, const Row& row) {
  std::vector<json> all = {tnode("node1")};
  all.insert(all.end(), row.objects.begin(), row.objects.end());
  Cluster c = build(all);
  std::string first;
  for (const auto& o : row.objects)
    if (o["kind"] == "Pod") {
      first = o["metadata"]["namespace"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>();
      break;
    }
  int pod = -1;
  for (size_t i = 0; i < c.pods.size(); ++i)
    if (c.pods[i].key() == first) pod = static_cast<int>(i);
  if (pod < 0) return "pod not in the cluster";
  Policy policy = evictor_policy(row.args);
  DeschedulerState state;
  Plan plan;
  auto e = framework::DefaultEvictor::create(policy.profiles[0].evictor, c, state,
                                             framework::evictor_options(policy, policy.profiles[0], t0(), Seconds(600)), plan);
  if (!e) return "create: " + e.message();
  return point == Point::Filter ? (*e)->filter(pod) : (*e)->pre_eviction_filter(pod);
}

void check(Point point, const std::vector<Row>& rows) {
  for (const Row& row : rows) EXPECT_EQ(answer(point, row), row.want) << row.intent;
}

const std::string kEvict = "descheduler.alpha.kubernetes.io/evict";
const std::string kPreferNo = "descheduler.alpha.kubernetes.io/prefer-no-eviction";
constexpr int32_t kSystemCritical = 2000000000;

TEST(DefaultEvictorUpstream, Filter) {
  const json p = owner(tpod("p1", "node1"));
  const std::vector<Row> rows = {
      {"Failed pod eviction with no ownerRefs", "{}", {failed(tpod("bare", "node1"))}, "bare-pod"},
      {"Normal pod eviction with no ownerRefs and evictFailedBarePods enabled", "{evictFailedBarePods: true}", {tpod("bare", "node1")},
       "bare-pod"},
      {"Failed pod eviction with no ownerRefs (evictFailedBarePods)", "{evictFailedBarePods: true}", {failed(tpod("bare", "node1"))}, ""},
      {"Normal pod eviction with normal ownerRefs", "{}", {p}, ""},
      {"Normal pod eviction with replicaSet ownerRefs", "{}", {owner(tpod("p3", "node1"))}, ""},
      {"Normal pod eviction with statefulSet ownerRefs", "{}", {owner(tpod("p18", "node1"))}, ""},
      {"Normal pod eviction with normal ownerRefs and descheduler.alpha.kubernetes.io/evict annotation", "{}", {evict_annotated(p)}, ""},
      {"Normal pod eviction with normal ownerRefs and descheduler.alpha.kubernetes.io/prefer-no-eviction annotation (preference)", "{}", {annotate(p, kPreferNo, "")}, ""},
      {"Normal pod eviction with normal ownerRefs and descheduler.alpha.kubernetes.io/prefer-no-eviction annotation (mandatory)", "{noEvictionPolicy: Mandatory}", {annotate(p, kPreferNo, "")},
       "prefer-no-eviction"},
      {"the evict annotation lifts Mandatory too (weft's case)", "{noEvictionPolicy: Mandatory}",
       {evict_annotated(annotate(p, kPreferNo, ""))}, ""},
      {"Normal pod eviction with replicaSet ownerRefs and descheduler.alpha.kubernetes.io/evict annotation", "{}", {evict_annotated(owner(tpod("p4", "node1"), "ReplicaSet"))}, ""},
      {"Normal pod eviction with statefulSet ownerRefs and descheduler.alpha.kubernetes.io/evict annotation", "{}",
       {evict_annotated(owner(tpod("p19", "node1"), "StatefulSet"))}, ""},
      {"Pod not evicted because it is bound to a PV and evictLocalStoragePods = false", "{}", {local_storage(p)}, "local-storage"},
      {"Pod is evicted because it is bound to a PV and evictLocalStoragePods = true", "{evictLocalStoragePods: true}", {local_storage(p)}, ""},
      {"Pod is evicted because it is bound to a PV and evictLocalStoragePods = false, but it has scheduler.alpha.kubernetes.io/evict annotation", "{}", {evict_annotated(local_storage(p))}, ""},
      {"Pod not evicted because it is part of a daemonSet", "{}", {owner(tpod("p8", "node1"), "DaemonSet")}, "daemonset"},
      {"Pod is evicted because it is part of a daemonSet, but it has scheduler.alpha.kubernetes.io/evict annotation", "{}", {evict_annotated(owner(tpod("p9", "node1"), "DaemonSet"))}, ""},
      {"Pod not evicted because it is a mirror poddsa", "{}", {mirror(p)}, "mirror-pod"},
      // Difference (docs/descheduler.md): upstream's evict annotation lifts the mirror rule
      // too; the Eviction API cannot move a mirror pod, so weft keeps it.
      {"Pod is evicted because it is a mirror pod, but it has scheduler.alpha.kubernetes.io/evict annotation (weft keeps it)", "{}", {evict_annotated(mirror(p))}, "mirror-pod"},
      {"a static pod stays (weft's case)", "{}", {annotate(p, "kubernetes.io/config.source", "file")}, "mirror-pod"},
      {"a mirror annotation with an empty value still marks a mirror pod (weft's case)",
       "{}", {annotate(p, "kubernetes.io/config.mirror", "")}, "mirror-pod"},
      {"a terminating pod stays (weft's case)", "{}", {terminating(p)}, "terminating"},
      // Difference (docs/descheduler.md): upstream's evict annotation lifts this too; the pod
      // is already going.
      {"a terminating pod stays even with the evict annotation (weft's case)", "{}", {evict_annotated(terminating(p))}, "terminating"},
      {"Pod not evicted because it has system critical priority", "{}", {prioritized(p, kSystemCritical)}, "system-critical"},
      {"a pod without a priority is below any threshold (weft's case)", "{priorityThreshold: {value: 0}}", {p}, ""},
      {"priorityThreshold by name: a pod at the class's value stays (weft's case)", "{priorityThreshold: {name: high}}",
       {prioritized(p, 900), priority_class("high", 900)}, "priority-threshold"},
      {"priorityThreshold by name: a pod below the class's value goes (weft's case)", "{priorityThreshold: {name: high}}",
       {prioritized(p, 899), priority_class("high", 900)}, ""},
      {"priorityThreshold naming no PriorityClass is an error (weft's case)", "{priorityThreshold: {name: missing}}", {p},
       "create: policy DefaultEvictor priorityThreshold.name: PriorityClass 'missing' not found"},
      {"Pod is evicted because it has system critical priority, but it has scheduler.alpha.kubernetes.io/evict annotation", "{}", {evict_annotated(prioritized(p, kSystemCritical))}, ""},
      {"Pod not evicted because it has a priority higher than the configured priority threshold", "{priorityThreshold: {value: 800}}", {prioritized(p, 900)},
       "priority-threshold"},
      {"Pod is evicted because it has a priority higher than the configured priority threshold, but it has scheduler.alpha.kubernetes.io/evict annotation", "{priorityThreshold: {value: 800}}",
       {evict_annotated(prioritized(p, 900))}, ""},
      {"Pod is evicted because it has system critical priority, but evictSystemCriticalPods = true", "{evictSystemCriticalPods: true}",
       {prioritized(p, kSystemCritical)}, ""},
      {"Pod is evicted because it has system critical priority, but evictSystemCriticalPods = true and it has scheduler.alpha.kubernetes.io/evict annotation", "{evictSystemCriticalPods: true}",
       {evict_annotated(prioritized(p, kSystemCritical))}, ""},
      {"Pod is evicted because it has a priority higher than the configured priority threshold, but evictSystemCriticalPods = true",
       "{evictSystemCriticalPods: true, priorityThreshold: {value: 800}}", {prioritized(p, 900)}, ""},
      {"Pod is evicted because it has a priority higher than the configured priority threshold, but evictSystemCriticalPods = true and it has scheduler.alpha.kubernetes.io/evict annotation",
       "{evictSystemCriticalPods: true, priorityThreshold: {value: 800}}", {evict_annotated(prioritized(p, 900))}, ""},
      {"Pod with no tolerations running on normal node, all other nodes tainted, no PreEvictionFilter, should ignore nodeFit", "{nodeFit: true}", {p, gpu_tainted(tnode("node2")), gpu_tainted(tnode("node3"))}, ""},
      {"minReplicas of 2, owner with 2 replicas, evicts", "{minReplicas: 2}",
       {owner(tpod("p1", "node1", 1, 1), "Pod", "owner-a"), owner(tpod("p2", "node1", 1, 1), "Pod", "owner-a")}, ""},
      {"minReplicas of 3, owner with 2 replicas, no eviction", "{minReplicas: 3}",
       {owner(tpod("p1", "node1", 1, 1), "Pod", "owner-a"), owner(tpod("p2", "node1", 1, 1), "Pod", "owner-a")},
       "min-replicas"},
      {"minReplicas of 2, multiple owners, no eviction (and TestReinitialization's row)", "{minReplicas: 2}",
       {owner(owner(tpod("p1", "node1", 1, 1), "Pod", "owner-a"), "Pod"), owner(tpod("p2", "node1", 1, 1))}, ""},
      {"minPodAge of 50, pod created 10 minutes ago, no eviction", "{minPodAge: 50m}", {started_ago(p, std::chrono::minutes(10))}, "min-pod-age"},
      {"minPodAge of 50, pod created 60 minutes ago, evicts", "{minPodAge: 50m}", {started_ago(p, std::chrono::minutes(60))}, ""},
      {"nil minPodAge, pod created 60 minutes ago, evicts", "{}", {started_ago(p, std::chrono::minutes(60))}, ""},
      {"ignorePodsWithoutPDB, pod with no PDBs, no eviction", "{ignorePodsWithoutPDB: true}", {labelled(p, "app", "foo")}, "no-pdb"},
      {"ignorePodsWithoutPDB, pod with PDBs, evicts", "{ignorePodsWithoutPDB: true}",
       {labelled(p, "app", "foo"), pdb("pdb1", "foo")}, ""},
      {"ignorePvcPods is set, pod with PVC, not evicts", "{ignorePvcPods: true}", {with_pvc(p)}, "pvc"},
      {"ignorePvcPods is not set, pod with PVC, evicts", "{}", {with_pvc(p)}, ""},
      {"Pod with local storage is evicted because 'PodsWithLocalStorage' is in DefaultDisabled", "{podProtections: {defaultDisabled: [PodsWithLocalStorage]}}",
       {local_storage(p)}, ""},
      {"DaemonSet pod is evicted because 'DaemonSetPods' is in DefaultDisabled", "{podProtections: {defaultDisabled: [DaemonSetPods]}}",
       {owner(tpod("p19", "node1"), "DaemonSet", "daemonset-uid")}, ""},
      {"Pod with PVC is not evicted because 'PodsWithPVC' is in ExtraEnabled", "{podProtections: {extraEnabled: [PodsWithPVC]}}", {with_pvc(p)}, "pvc"},
      {"Pod without PDB is not evicted because 'PodsWithoutPDB' is in ExtraEnabled", "{podProtections: {extraEnabled: [PodsWithoutPDB]}}", {p}, "no-pdb"},
      {"Pod with ResourceClaims is not evicted because 'PodsWithResourceClaims' is in ExtraEnabled", "{podProtections: {extraEnabled: [PodsWithResourceClaims]}}",
       {[&] {
         json q = p;
         q["spec"]["resourceClaims"] = json::array({{{"name", "test-claim"}, {"resourceClaimName", "test-resource-claim"}}});
         return q;
       }()},
       "resource-claims"},
      {"Pod using StorageClass is not evicted because 'PodsWithPVC' is in ExtraEnabled",
       "{podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: {protectedStorageClasses: [{name: standard}]}}}}",
       {with_pvc(p), pvc("foo", "standard")}, "pvc"},
      {"Pod using unprotected StorageClass is evicted even though 'PodsWithPVC' is in ExtraEnabled",
       "{podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: {protectedStorageClasses: [{name: protected}]}}}}",
       {with_pvc(p), pvc("foo", "unprotected")}, ""},
      {"Pod using unexisting PVC is not evicted because we cannot determine if storage class is protected or not",
       "{podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: {protectedStorageClasses: [{name: protected}]}}}}",
       {with_pvc(p)}, "pvc"},
      {"Pod using protected and unprotected StorageClasses is not evicted",
       "{podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: {protectedStorageClasses: [{name: protected}]}}}}",
       {with_pvc(p, {"protected", "unprotected"}), pvc("protected", "protected"), pvc("unprotected", "unprotected")}, "pvc"},
  };
  check(Point::Filter, rows);
}

TEST(DefaultEvictorUpstream, PreEvictionFilter) {
  const json p = owner(tpod("p1", "node1"));
  const json small = owner(tpod("p1", "node1", 12, 8));
  const auto other_pod = [](const std::string& name, const std::string& where, int cpu_m) {
    return labelled(tpod(name, where, cpu_m, 10), "test", "true");
  };
  const std::vector<Row> rows = {
      {"Pod with no tolerations running on normal node, all other nodes tainted", "{nodeFit: true}", {p, gpu_tainted(tnode("node2")), gpu_tainted(tnode("node3"))},
       "node-fit"},
      {"Pod with correct tolerations running on normal node, all other nodes tainted", "{nodeFit: true}",
       {tolerating_gpu(p), gpu_tainted(tnode("node2")), gpu_tainted(tnode("node3"))}, ""},
      {"Pod with incorrect node selector", "{nodeFit: true}",
       {selecting(p, "fail"), east(tnode("node2")), east(tnode("node3"))}, "node-fit"},
      {"Pod with correct node selector", "{nodeFit: true}",
       {selecting(p, "east"), east(tnode("node2")), east(tnode("node3"))}, ""},
      {"Pod with correct node selector, but only available node doesn't have enough CPU", "{nodeFit: true}",
       {selecting(small, "east"), east(tnode("node2-TEST", 10, 16, 10)), east(tnode("node3-TEST", 10, 16, 10))}, "node-fit"},
      {"Pod with correct node selector, and one node has enough memory", "{nodeFit: true}",
       {selecting(small, "east"), other_pod("node2-pod-10GB-mem", "node2", 20), other_pod("node3-pod-10GB-mem", "node3", 20),
        east(tnode("node2", 100, 16, 10)), east(tnode("node3", 100, 20, 10))},
       ""},
      {"Pod with correct node selector, but both nodes don't have enough memory", "{nodeFit: true}",
       {selecting(small, "east"), other_pod("node2-pod-10GB-mem", "node2", 10), other_pod("node3-pod-10GB-mem", "node3", 10),
        east(tnode("node2", 100, 16, 10)), east(tnode("node3", 100, 16, 10))},
       "node-fit"},
      {"Pod with incorrect node selector, but nodefit false, should still be evicted", "{}",
       {selecting(p, "fail"), east(tnode("node2")), east(tnode("node3"))}, ""},
      {"Pod with namespace matched namespace selector, should be evicted",
       "{nodeFit: true, namespaceLabelSelector: {matchLabels: {kubernetes.io/metadata.name: test}}}",
       {in_namespace(selecting(p, "east"), "test"), east(tnode("node2")), east(tnode("node3")), namespace_object("default"),
        namespace_object("test")},
       ""},
      // Upstream asks nodeFit first; weft the namespace first: either refuses this pod.
      {"Pod with namespace does not matched namespace selector, should not be evicted",
       "{nodeFit: true, namespaceLabelSelector: {matchLabels: {kubernetes.io/metadata.name: test}}}",
       {selecting(p, "fail"), east(tnode("node2")), east(tnode("node3")), namespace_object("default"),
        namespace_object("test")},
       "namespace-label-selector"},
      // The evictor's own nodeSelector: the nodes nodeFit may count (upstream's ReadyNodes).
      {"nodeFit counts only the nodes the evictor's nodeSelector selects (weft's case)", "{nodeFit: true, nodeSelector: datacenter=west}",
       {p, east(tnode("node2")), east(tnode("node3"))}, "node-fit"},
      {"nodeFit with a nodeSelector some other node matches (weft's case)", "{nodeFit: true, nodeSelector: datacenter=east}",
       {p, east(tnode("node2")), tnode("node3")}, ""},
      {"without nodeFit the evictor's nodeSelector asks nothing (weft's case)", "{nodeSelector: datacenter=west}",
       {p, east(tnode("node2"))}, ""},
      {"a namespace the listing lacks is not selected (weft's case)",
       "{namespaceLabelSelector: {matchLabels: {kubernetes.io/metadata.name: test}}}",
       {in_namespace(p, "test"), namespace_object("default")}, "namespace-label-selector"},
  };
  check(Point::PreEvictionFilter, rows);
}

// TestMultipleProfilesWithDifferentNamespaceLabelSelectors and
// TestNamespaceLabelSelectorAllOperations: which pods each selector lets through.
TEST(DefaultEvictorUpstream, NamespaceLabelSelectorOperations) {
  const std::vector<json> objects = {
      namespace_object("ns-prod", {{"env", "prod"}, {"tier", "frontend"}}),
      namespace_object("ns-staging", {{"env", "staging"}, {"tier", "backend"}}),
      namespace_object("ns-test", {{"env", "test"}}),
      namespace_object("ns-nolabels"),
      namespace_object("ns-backend", {{"team", "backend"}})};
  auto pod_in = [](const std::string& ns) { return in_namespace(owner(tpod("pod-in-" + ns, "node1", 100, 100)), ns); };
  struct Case {
    const char* intent;
    const char* selector;
    std::vector<std::string> pass, fail;
  };
  const std::vector<Case> cases = {
      {"matchLabels env=prod", "{matchLabels: {env: prod}}", {"ns-prod"}, {"ns-backend", "ns-test"}},
      {"matchLabels team=backend", "{matchLabels: {team: backend}}", {"ns-backend"}, {"ns-prod", "ns-test"}},
      {"matchLabels and In", "{matchLabels: {tier: frontend}, matchExpressions: [{key: env, operator: In, values: [prod, staging]}]}",
       {"ns-prod"}, {"ns-staging", "ns-test"}},
      {"matchLabels and Exists", "{matchLabels: {tier: backend}, matchExpressions: [{key: env, operator: Exists}]}",
       {"ns-staging"}, {"ns-prod", "ns-test"}},
      {"Exists and In", "{matchExpressions: [{key: tier, operator: Exists}, {key: env, operator: In, values: [staging]}]}",
       {"ns-staging"}, {"ns-prod", "ns-test"}},
      {"DoesNotExist", "{matchExpressions: [{key: tier, operator: DoesNotExist}]}", {"ns-test", "ns-nolabels"},
       {"ns-prod", "ns-staging"}},
      {"NotIn", "{matchExpressions: [{key: env, operator: NotIn, values: [prod, test]}]}", {"ns-staging"},
       {"ns-prod", "ns-test"}},
  };
  for (const Case& k : cases) {
    for (const auto& [list, want] : {std::pair{&k.pass, ""}, std::pair{&k.fail, "namespace-label-selector"}})
      for (const auto& ns : *list) {
        Row row{k.intent, nullptr, {pod_in(ns)}, want};
        row.objects.insert(row.objects.end(), objects.begin(), objects.end());
        const std::string args = std::string("{namespaceLabelSelector: ") + k.selector + "}";
        row.args = args.c_str();
        EXPECT_EQ(answer(Point::PreEvictionFilter, row), want) << k.intent << ": " << ns;
      }
  }
}

}  // namespace
}  // namespace weft::descheduler::test
