#include "descheduler/core/plugins/common/placement.h"

#include "kube/taints.h"

namespace weft::descheduler::plugins {

bool node_matches_pod(const PodInfo& pod, const NodeInfo& node) {
  return pod.affinity().matches(node.name, node.labels) && !kube::first_untolerated_hard_taint(node.taints, pod.tolerations());
}

bool fits_other_node(framework::Handle& handle, int pod, const std::vector<int>& nodes) {
  const Cluster& cluster = handle.cluster();
  const PodInfo& p = cluster.pods[static_cast<size_t>(pod)];
  for (int n : nodes) {
    if (n == p.node) continue;
    if (handle.evictor().placement_blocker(pod, n).empty() && handle.evictor().target_blocker(pod, n).empty())
      return true;
  }
  return false;
}

}  // namespace weft::descheduler::plugins
