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

std::vector<Listed> list_pods(const framework::Evictor& evictor, const std::vector<int>& pods) {
  std::vector<Listed> out;
  for (int p : pods)
    if (evictor.filter(p).empty()) out.push_back({p, evictor.listing_filter(p)});
  return out;
}

std::string evict_listed(framework::Handle& handle, const Listed& listed, framework::EvictionRequest request) {
  if (!listed.refused.empty()) {
    handle.skip(listed.pod, listed.refused);
    return listed.refused;
  }
  request.pod = listed.pod;
  return handle.evictor().evict(request);   // a refusal is recorded as the pod's skip by the evictor
}

Stop evict_in_order(framework::Handle& handle, int node, const std::vector<Listed>& pods, const std::string& plugin,
                    const std::function<std::string(int)>& reason) {
  framework::Evictor& evictor = handle.evictor();
  for (const Listed& listed : pods) {
    if (evictor.total_limit_reached()) return Stop::Total;
    if (evictor.node_limit_reached(node)) return Stop::Node;
    framework::EvictionRequest request;
    request.reason = reason(listed.pod);
    request.plugin = plugin;
    evict_listed(handle, listed, std::move(request));
  }
  return evictor.total_limit_reached() ? Stop::Total : Stop::None;
}

void evict_per_node(framework::Handle& handle, const std::vector<int>& nodes,
                    const std::function<std::vector<int>(int node)>& breaking, const std::string& plugin,
                    const std::function<std::string(int)>& reason) {
  std::vector<std::vector<Listed>> listed;
  listed.reserve(nodes.size());
  for (int node : nodes) listed.push_back(list_pods(handle.evictor(), breaking(node)));
  for (size_t i = 0; i < nodes.size(); ++i)
    if (evict_in_order(handle, nodes[i], listed[i], plugin, reason) == Stop::Total) return;
}

}  // namespace weft::descheduler::plugins
