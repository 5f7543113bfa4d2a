#include "descheduler/core/plugins/RemovePodsViolatingNodeAffinity/node_affinity.h"

#include "descheduler/core/plugins/common/placement.h"

namespace weft::descheduler::plugins::node_affinity {

using args::field;
using args::join;

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  if (!a.is_null())
    if (auto s = args::only_fields(c, a, path, {"namespaces", "labelSelector", "nodeAffinityType"}); !s) return s.error();
  auto filter = read_pod_filter(c, a, path);
  if (!filter) return filter.error();
  out.filter = std::move(*filter);
  const std::string at = join(path, "nodeAffinityType");
  auto types = args::get_strings(c, field(a, "nodeAffinityType"), at);
  if (!types) return types.error();
  if (types->empty()) return c.at(at, "is required (" + std::string(kRequired) + ")");
  for (size_t i = 0; i < types->size(); ++i) {
    const std::string& t = (*types)[i];
    std::string where = at + "[" + std::to_string(i) + "]";
    if (t == kPreferred)
      return c.at(where, "preferredDuringSchedulingIgnoredDuringExecution is not supported by weft-descheduler yet "
                         "(it needs the scheduler's preferred node affinity score); use " + std::string(kRequired));
    if (t != kRequired) return c.at(where, "'" + t + "' is not " + std::string(kRequired));
  }
  out.node_affinity_type = std::move(*types);
  return out;
}

bool violates_required(const PodInfo& pod, const NodeInfo& node) {
  return pod.detail.requires_node_affinity && !pod.affinity.matches(node.name, node.labels);
}

Status Plugin::deschedule(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  for (size_t round = 0; round < args_.node_affinity_type.size(); ++round) {   // as upstream, once per type listed
    for (int node : nodes) {
      const NodeInfo& info = cluster.nodes[static_cast<size_t>(node)];
      std::vector<int> violating;
      for (int p : info.pods) {
        const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
        if (args_.filter.matches(pod) && violates_required(pod, info) && handle.evictor().filter(p).empty() &&
            fits_other_node(handle, p, nodes))
          violating.push_back(p);
      }
      auto stop = evict_in_order(handle, node, violating, kName,
                                 [](int) { return std::string("node no longer matches its required node affinity"); });
      if (stop == Stop::Total) return {};
    }
  }
  return {};
}

}  // namespace weft::descheduler::plugins::node_affinity
