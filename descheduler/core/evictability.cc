#include "descheduler/core/evictability.h"

#include <algorithm>

namespace weft::descheduler {

Result<Evictability> Evictability::create(const Policy& policy, const Cluster& cluster, TimePoint now) {
  Evictability e;
  e.policy_ = &policy;
  e.cluster_ = &cluster;
  e.now_ = now;
  const PriorityThreshold& pt = policy.evictor.priority_threshold;
  if (pt.value) {
    e.threshold_ = *pt.value;
  } else if (!pt.name.empty()) {
    auto it = cluster.priority_classes.find(pt.name);
    if (it != cluster.priority_classes.end()) e.threshold_ = it->second;
    else if (pt.name == "system-cluster-critical") e.threshold_ = kSystemCriticalPriority;
    else if (pt.name == "system-node-critical") e.threshold_ = kSystemCriticalPriority + 1000;
    else return make_error("policy DefaultEvictor priorityThreshold.name: PriorityClass '" + pt.name + "' not found");
  }
  return e;
}

bool Evictability::namespace_allowed(const PodInfo& pod) const {
  const LoadAwareArgs& la = policy_->load_aware;
  if (!la.include_namespaces.empty() &&
      std::find(la.include_namespaces.begin(), la.include_namespaces.end(), pod.ns) == la.include_namespaces.end())
    return false;
  return std::find(la.exclude_namespaces.begin(), la.exclude_namespaces.end(), pod.ns) == la.exclude_namespaces.end();
}

std::string Evictability::blocker(const PodInfo& pod) const {
  // Never lifted: the Eviction API cannot move a mirror pod, a terminating pod is already
  // going, and evictableNamespaces belongs to the balance plugin, not to the evictor.
  if (pod.terminating) return "terminating";
  if (pod.mirror) return "mirror-pod";
  if (!namespace_allowed(pod)) return "namespace-excluded";
  // As upstream, the annotation lifts every DefaultEvictor rule below.
  if (pod.evict_annotation) return "";
  return rule_blocker(pod);
}

std::string Evictability::rule_blocker(const PodInfo& pod) const {
  const EvictorArgs& a = policy_->evictor;
  if (!a.evict_system_critical_pods) {
    if (pod.has_priority && pod.priority >= kSystemCriticalPriority) return "system-critical";
    // A pod without a priority is below any threshold (upstream).
    if (pod.has_priority && pod.priority >= threshold_) return "priority-threshold";
  }
  if (pod.owner_count == 0 && !(a.evict_failed_bare_pods && pod.phase == "Failed")) return "bare-pod";
  if (pod.has_local_storage && !a.evict_local_storage_pods) return "local-storage";
  if (pod.daemonset && !a.evict_daemonset_pods) return "daemonset";
  if (pod.has_pvc && a.ignore_pvc_pods) return "pvc";
  if (a.ignore_pods_without_pdb && pod.pdbs.empty()) return "no-pdb";
  if (a.label_selector && !a.label_selector->matches(pod.labels)) return "label-selector";
  if (a.min_replicas > 1 && pod.owner_count == 1) {
    auto it = cluster_->pods_of_owner.find(pod.owner_key());
    if (it == cluster_->pods_of_owner.end() || it->second < a.min_replicas) return "min-replicas";
  }
  if (a.min_pod_age &&
      (!pod.started || now_ - *pod.started < std::chrono::duration_cast<TimePoint::duration>(*a.min_pod_age)))
    return "min-pod-age";
  return "";
}

}  // namespace weft::descheduler
