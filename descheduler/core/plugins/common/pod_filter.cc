#include "descheduler/core/plugins/common/pod_filter.h"

#include <algorithm>

namespace weft::descheduler::plugins {

bool PodFilter::matches(const PodInfo& pod) const {
  return namespaces.allows(pod.ns) && (!labels || labels->matches(pod.labels()));
}

Result<PodFilter> read_pod_filter(const args::Ctx& c, const nlohmann::json& a, const std::string& path,
                                  bool with_labels) {
  PodFilter f;
  args::Problems problems;
  auto ns = problems.take(args::get_namespaces(c, args::field(a, "namespaces"), args::join(path, "namespaces")));
  std::optional<std::optional<kube::LabelSelector>> sel;
  if (with_labels)
    sel = problems.take(args::get_label_selector(c, args::field(a, "labelSelector"), args::join(path, "labelSelector")));
  if (!problems.empty()) return problems.error();
  f.namespaces = std::move(*ns);
  if (sel) f.labels = std::move(*sel);
  return f;
}

bool owned_by_any(const PodInfo& pod, const std::vector<std::string>& kinds) {
  return std::any_of(pod.detail.owners.begin(), pod.detail.owners.end(), [&](const OwnerRef& o) {
    return std::find(kinds.begin(), kinds.end(), o.kind.view()) != kinds.end();
  });
}

std::vector<int> all_pods_on(const Cluster& cluster, int node) {
  const NodeInfo& n = cluster.nodes[static_cast<size_t>(node)];
  std::vector<int> out = n.pods;
  out.insert(out.end(), n.terminal_pods.begin(), n.terminal_pods.end());
  return out;
}

Stop evict_in_order(framework::Handle& handle, int node, const std::vector<int>& pods, const std::string& plugin,
                    const std::function<std::string(int)>& reason) {
  framework::Evictor& evictor = handle.evictor();
  for (int pod : pods) {
    if (evictor.total_limit_reached()) return Stop::Total;
    if (evictor.node_limit_reached(node)) return Stop::Node;
    framework::EvictionRequest request;
    request.pod = pod;
    request.reason = reason(pod);
    request.plugin = plugin;
    evictor.evict(request);   // a refusal is recorded as the pod's skip by the evictor
  }
  return evictor.total_limit_reached() ? Stop::Total : Stop::None;
}

}  // namespace weft::descheduler::plugins
