#include "descheduler/core/plugins/RemovePodsViolatingNodeAffinity/node_affinity.h"

#include <algorithm>

#include "descheduler/core/plugins/common/placement.h"
#include "scheduler/core/preferred_node.h"

namespace weft::descheduler::plugins::node_affinity {

using args::field;
using args::join;

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path, {"namespaces", "labelSelector", "nodeAffinityType"}))
    return problems.error();
  if (auto filter = problems.take(read_pod_filter(c, a, path))) out.filter = std::move(*filter);
  const std::string at = join(path, "nodeAffinityType");
  if (auto types = problems.take(args::get_strings(c, field(a, "nodeAffinityType"), at))) {
    if (types->empty()) problems.add(c.at(at, "is required (" + std::string(kRequired) + ")"));
    for (size_t i = 0; i < types->size(); ++i) {
      const std::string& t = (*types)[i];
      std::string where = at + "[" + std::to_string(i) + "]";
      if (t != kRequired && t != kPreferred)
        problems.add(c.at(where, "'" + t + "' is not " + std::string(kRequired) + " or " + std::string(kPreferred)));
    }
    out.node_affinity_type = std::move(*types);
  }
  if (!problems.empty()) return problems.error();
  return out;
}

bool violates_required(const PodInfo& pod, const NodeInfo& node) {
  return pod.detail.requires_node_affinity && !pod.affinity().matches(node.name, node.labels);
}

namespace {

int64_t preferred_weight(const Cluster& cluster, const PodInfo& pod, int node) {
  const auto& n = cluster.snapshot.nodes[static_cast<size_t>(cluster.topology_node[static_cast<size_t>(node)])];
  return scheduler::preferred_node_weight(cluster.snapshot.pods[static_cast<size_t>(pod.core)].contract(), n.name, n.labels);
}

}  // namespace

bool better_preferred_node(const Cluster& cluster, const PodInfo& pod, const std::vector<int>& nodes) {
  if (pod.core < 0 || cluster.snapshot.pods[static_cast<size_t>(pod.core)].contract().preferred_node.empty()) return false;
  const int64_t own = preferred_weight(cluster, pod, pod.node);
  return std::any_of(nodes.begin(), nodes.end(), [&](int n) { return preferred_weight(cluster, pod, n) > own; });
}

Status Plugin::deschedule(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  for (const std::string& type : args_.node_affinity_type) {   // as upstream, once per type listed
    const bool required = type == kRequired;
    auto violating = [&](int node) {
      const NodeInfo& info = cluster.nodes[static_cast<size_t>(node)];
      std::vector<int> out;
      for (int p : info.pods) {
        const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
        if (!args_.filter.matches(pod)) continue;
        if (required ? !violates_required(pod, info) : !better_preferred_node(cluster, pod, nodes)) continue;
        if (fits_other_node(handle, p, nodes)) out.push_back(p);
      }
      return out;
    };
    evict_per_node(handle, nodes, violating, kName, [required](int) {
      return std::string(required ? "node no longer matches its required node affinity"
                                  : "another node matches more of its preferred node affinity");
    });
    if (handle.evictor().total_limit_reached()) return {};
  }
  return {};
}

}  // namespace weft::descheduler::plugins::node_affinity
