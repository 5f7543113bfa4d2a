// Read-only questions other components (the descheduler) ask of the scheduler's network
// topology (topology.h: HyperNodes, else domains derived from the agents' labels), so a
// pod moved elsewhere stays where the scheduler could have put it.
#pragma once

#include <vector>

#include "common/result.h"
#include "scheduler/core/topology.h"

namespace weft::scheduler::query {

// The highest tier a hard-topology gang may span: highestTierAllowed, or the tier of the
// domains whose spec.tierName is highestTierName (an error names a tierName no domain
// has), or the top tier.
Result<int> highest_tier(const Topology& topo, const NetworkTopology& nt);

// The nodes a pod of a gang confined to tiers up to `tier` may move to from `node`: those
// of the widest domain of tier <= `tier` holding it (ascending node indices). Null when no
// such domain holds the node (no target can be proven to keep the gang together).
const std::vector<int>* confining_nodes(const Topology& topo, int node, int tier);

}  // namespace weft::scheduler::query
