#include "descheduler/core/plugins/common/placement.h"

#include "kube/taints.h"

namespace weft::descheduler::plugins {

bool node_matches_pod(const PodInfo& pod, const NodeInfo& node) {
  return pod.affinity.matches(node.name, node.labels) && !kube::first_untolerated_hard_taint(node.taints, pod.tolerations);
}

bool node_admits(const PodInfo& pod, const NodeInfo& node) {
  return node.ready && !node.unschedulable && node_matches_pod(pod, node);
}

bool fits_other_node(framework::Handle& handle, int pod, const std::vector<int>& nodes) {
  const Cluster& cluster = handle.cluster();
  const PodInfo& p = cluster.pods[static_cast<size_t>(pod)];
  for (int n : nodes) {
    if (n == p.node) continue;
    if (node_admits(p, cluster.nodes[static_cast<size_t>(n)]) && handle.evictor().target_blocker(pod, n).empty())
      return true;
  }
  return false;
}

}  // namespace weft::descheduler::plugins
