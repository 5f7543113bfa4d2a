#include "descheduler/core/topology.h"

#include <algorithm>

#include "scheduler/core/query/domain.h"

namespace weft::descheduler {
namespace {

std::string label_or_empty(const NodeInfo& n, const char* key) {
  auto it = n.labels.find(key);
  return it == n.labels.end() ? "" : it->second;
}

void require(DomainRule& rule, const NodeInfo& source, const char* key) {
  for (const auto& [k, _] : rule.required)
    if (k == key) return;
  rule.required.emplace_back(key, label_or_empty(source, key));
}

}  // namespace

bool DomainRule::allows(int target, const Cluster& cluster) const {
  const NodeInfo& node = cluster.nodes[static_cast<size_t>(target)];
  for (const auto& [key, value] : required) {
    if (value.empty()) return false;
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  if (!confined) return true;
  return nodes && std::binary_search(nodes->begin(), nodes->end(), cluster.topology_node[static_cast<size_t>(target)]);
}

DomainRule domain_rule(const PodInfo& pod, const Cluster& cluster) {
  DomainRule rule;
  const NodeInfo& source = cluster.nodes[static_cast<size_t>(pod.node)];
  bool source_on_ib = label_or_empty(source, keys::kRdma) == "ib" || !label_or_empty(source, keys::kFabric).empty();
  if (pod.requests_rdma() && source_on_ib) require(rule, source, keys::kFabric);
  if (pod.group.empty()) return rule;
  auto g = cluster.groups.find(pod.ns + "/" + pod.group);
  if (g == cluster.groups.end()) return rule;
  if (g->second.same_ib_cluster) require(rule, source, keys::kFabric);
  if (g->second.topology.mode == scheduler::NetworkTopology::Mode::Hard) {
    rule.confined = true;
    // A tierName no domain has proves no target (the scheduler would not place the gang either).
    auto tier = scheduler::query::highest_tier(cluster.topology, g->second.topology);
    if (tier)
      rule.nodes = scheduler::query::confining_nodes(cluster.topology,
                                                     cluster.topology_node[static_cast<size_t>(pod.node)], *tier);
  }
  return rule;
}

}  // namespace weft::descheduler
