#include "scheduler/core/query/domain.h"

#include <optional>

namespace weft::scheduler::query {

Result<int> highest_tier(const Topology& topo, const NetworkTopology& nt) {
  if (!nt.highest_tier_name.empty()) {
    std::optional<int> tier;
    for (const auto& d : topo.domains)
      if (d.tier_name == nt.highest_tier_name) tier = std::max(tier.value_or(0), d.tier);
    if (!tier)
      return make_error("networkTopology.highestTierName '" + nt.highest_tier_name +
                        "' matches no HyperNode spec.tierName");
    return *tier;
  }
  return nt.highest_tier > 0 ? nt.highest_tier : topo.max_tier;
}

const std::vector<int>* confining_nodes(const Topology& topo, int node, int tier) {
  if (node < 0 || static_cast<size_t>(node) >= topo.node_domains.size()) return nullptr;
  const Domain* widest = nullptr;
  for (int d : topo.node_domains[static_cast<size_t>(node)]) {   // lowest tier first
    const Domain& domain = topo.domains[static_cast<size_t>(d)];
    if (domain.tier <= tier && (!widest || domain.tier > widest->tier)) widest = &domain;
  }
  return widest ? &widest->nodes : nullptr;
}

}  // namespace weft::scheduler::query
