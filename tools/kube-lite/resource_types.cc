#include "tools/kube-lite/resource_types.h"

#include <algorithm>
#include <tuple>

namespace weft::kube_lite {

ResourceTypes::ResourceTypes() {
  auto add = [this](ResourceType t) {
    t.id = static_cast<int>(types_.size());
    types_.push_back(std::move(t));
  };
  add({0, "", "v1", "namespaces", "namespace", "Namespace", false, true, false, {"ns"}, {}});
  add({0, "", "v1", "nodes", "node", "Node", false, true, false, {"no"}, {}});
  add({0, "", "v1", "pods", "pod", "Pod", true, true, false, {"po"}, {"all"}});
  add({0, "", "v1", "events", "event", "Event", true, false, false, {"ev"}, {}});
  add({0, "", "v1", "configmaps", "configmap", "ConfigMap", true, false, false, {"cm"}, {}});
  add({0, "events.k8s.io", "v1", "events", "event", "Event", true, false, false, {"ev"}, {}});
  add({0, "coordination.k8s.io", "v1", "leases", "lease", "Lease", true, false, false, {}, {}});
  add({0, "policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, true, false,
       {"pdb"}, {}});
  add({0, "scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false, false, false,
       {"pc"}, {}});
  add({0, "scheduling.volcano.sh", "v1beta1", "podgroups", "podgroup", "PodGroup", true, true, true,
       {"pg", "podgroup-v1beta1"}, {}});
  add({0, "scheduling.volcano.sh", "v1beta1", "queues", "queue", "Queue", false, true, true, {"q", "queue-v1beta1"},
       {}});
  add({0, "topology.volcano.sh", "v1alpha1", "hypernodes", "hypernode", "HyperNode", false, true, true, {"hn"}, {}});
  // metrics-server's usage (NodeMetrics, PodMetrics), read-only, from the objects of --state.
  add({0, "metrics.k8s.io", "v1beta1", "nodes", "", "NodeMetrics", false, false, false, {}, {}, -1, true});
  add({0, "metrics.k8s.io", "v1beta1", "pods", "", "PodMetrics", true, false, false, {}, {}, -1, true});
  // Karmada's control plane (weft-scheduler global) and the Volcano Job it dispatches.
  add({0, "cluster.karmada.io", "v1alpha1", "clusters", "cluster", "Cluster", false, true, true, {}, {}});
  add({0, "work.karmada.io", "v1alpha2", "resourcebindings", "resourcebinding", "ResourceBinding", true, true, true, {"rb"}, {}});
  add({0, "policy.karmada.io", "v1alpha1", "propagationpolicies", "propagationpolicy", "PropagationPolicy", true, false,
       true, {"pp"}, {}});
  add({0, "batch.volcano.sh", "v1alpha1", "jobs", "job", "Job", true, true, true, {"vcjob", "vj"}, {}});
  // Kubernetes' own gang API (KEP-4671, KEP-6012), at the versions weft-scheduler run watches.
  add({0, "scheduling.k8s.io", "v1beta1", "podgroups", "podgroup", "PodGroup", true, true, false, {}, {}});
  add({0, "scheduling.k8s.io", "v1beta1", "workloads", "workload", "Workload", true, false, false, {}, {}});
  add({0, "scheduling.k8s.io", "v1alpha3", "compositepodgroups", "compositepodgroup", "CompositePodGroup", true, true,
       false, {}, {}});
  // The same PodGroups and Workloads at v1alpha3, as a server with the alpha version on serves them.
  for (const char* plural : {"podgroups", "workloads"}) {
    ResourceType alpha = *find("scheduling.k8s.io", "v1beta1", plural);
    alpha.storage = alpha.id;
    alpha.version = "v1alpha3";
    add(std::move(alpha));
  }
  // What deploy/ applies (schemas in schemas.cc).
  add({0, "", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, false, false, {"sa"}, {}});
  for (auto [plural, kind, namespaced] : {std::tuple<std::string, std::string, bool>{"roles", "Role", true},
                                          {"rolebindings", "RoleBinding", true}, {"clusterroles", "ClusterRole", false},
                                          {"clusterrolebindings", "ClusterRoleBinding", false}})
    add({0, "rbac.authorization.k8s.io", "v1", plural, plural.substr(0, plural.size() - 1), kind, namespaced, false,
         false, {}, {}});
  add({0, "apps", "v1", "daemonsets", "daemonset", "DaemonSet", true, true, false, {"ds"}, {"all"}});
  add({0, "apps", "v1", "deployments", "deployment", "Deployment", true, true, false, {"deploy"}, {"all"}});
  add({0, "batch", "v1", "jobs", "job", "Job", true, true, false, {}, {"all"}});
  add({0, "batch", "v1", "cronjobs", "cronjob", "CronJob", true, true, false, {"cj"}, {"all"}});
  add({0, "admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "validatingadmissionpolicy",
       "ValidatingAdmissionPolicy", false, true, false, {}, {"api-extensions"}});
  add({0, "admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings", "validatingadmissionpolicybinding",
       "ValidatingAdmissionPolicyBinding", false, false, false, {}, {"api-extensions"}});
  add({0, "monitoring.coreos.com", "v1", "podmonitors", "podmonitor", "PodMonitor", true, false, true, {"pmon"},
       {"prometheus-operator"}});
  // Storage, as kube-scheduler's volume filters read it (storage.h).
  add({0, "", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false, true, false, {"pv"}, {}});
  add({0, "", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, true, false,
       {"pvc"}, {}});
  add({0, "storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", false, false, false, {"sc"}, {}});
  add({0, "storage.k8s.io", "v1", "csinodes", "csinode", "CSINode", false, false, false, {}, {}});
  add({0, "storage.k8s.io", "v1", "csidrivers", "csidriver", "CSIDriver", false, false, false, {}, {}});
}

const ResourceType* ResourceTypes::find(const std::string& group, const std::string& version,
                                        const std::string& plural) const {
  for (const auto& t : types_)
    if (t.group == group && t.version == version && t.plural == plural) return &t;
  return nullptr;
}

const ResourceType* ResourceTypes::find_kind(const std::string& api_version, const std::string& kind) const {
  for (const auto& t : types_)
    if (t.api_version() == api_version && t.kind == kind) return &t;
  return nullptr;
}

std::vector<std::pair<std::string, std::vector<std::string>>> ResourceTypes::groups() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& t : types_) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.first == t.group; });
    if (it == out.end()) {
      out.push_back({t.group, {t.version}});
    } else if (std::find(it->second.begin(), it->second.end(), t.version) == it->second.end()) {
      it->second.push_back(t.version);
    }
  }
  return out;
}

}  // namespace weft::kube_lite
