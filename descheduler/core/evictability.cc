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

std::string Evictability::blocker(const PodInfo& pod) const {
  const EvictorArgs& a = policy_->evictor;
  const LoadAwareArgs& la = policy_->load_aware;
  if (pod.terminating) return "terminating";
  if (pod.mirror) return "mirror-pod";
  if (pod.owner_kind == "DaemonSet" && !a.evict_daemonset_pods) return "daemonset";
  if (pod.owner_kind.empty() && !(a.evict_failed_bare_pods && pod.phase == "Failed")) return "bare-pod";
  if (!la.include_namespaces.empty() &&
      std::find(la.include_namespaces.begin(), la.include_namespaces.end(), pod.ns) == la.include_namespaces.end())
    return "namespace-excluded";
  if (std::find(la.exclude_namespaces.begin(), la.exclude_namespaces.end(), pod.ns) != la.exclude_namespaces.end())
    return "namespace-excluded";
  bool critical = pod.ns == "kube-system" || pod.priority >= kSystemCriticalPriority ||
                  pod.priority_class == "system-cluster-critical" || pod.priority_class == "system-node-critical";
  if (!a.evict_system_critical_pods) {
    if (critical) return "system-critical";
    if (pod.priority >= threshold_) return "priority-threshold";
  }
  if (pod.has_pvc && a.ignore_pvc_pods) return "pvc";
  // The evict annotation lifts the remaining soft rules. Unlike upstream it does not lift
  // priority, system-critical or PVC protection: those are the operator's policy.
  if (pod.evict_annotation) return "";
  if (pod.has_local_storage && !a.evict_local_storage_pods) return "local-storage";
  if (a.label_selector && !a.label_selector->matches(pod.labels)) return "label-selector";
  if (a.min_pod_age && pod.created &&
      now_ - *pod.created < std::chrono::duration_cast<TimePoint::duration>(*a.min_pod_age))
    return "min-pod-age";
  if (a.min_replicas > 1 && !pod.owner_kind.empty()) {
    auto it = cluster_->pods_of_owner.find(pod.owner_kind + "/" + pod.ns + "/" + pod.owner_name);
    if (it == cluster_->pods_of_owner.end() || it->second < a.min_replicas) return "min-replicas";
  }
  return "";
}

}  // namespace weft::descheduler
