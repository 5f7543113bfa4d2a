// Where an evicted pod could go back: upstream's PodFitsAnyNode, asked of the scheduler's
// filters (the evictor's placement_blocker) and the evictor's target check (the pod's
// fabric or tier domain and, with nodeFit, room for its requests).
#pragma once

#include <vector>

#include "descheduler/core/cluster.h"
#include "descheduler/core/framework/plugin.h"

namespace weft::descheduler::plugins {

// The pod's nodeSelector and required node affinity match the node and it tolerates every
// NoSchedule/NoExecute taint there (the scheduler's rules, whatever the node's state).
bool node_matches_pod(const PodInfo& pod, const NodeInfo& node);

// Some node of `nodes` other than the pod's own admits it and the evictor takes it there.
bool fits_other_node(framework::Handle& handle, int pod, const std::vector<int>& nodes);

}  // namespace weft::descheduler::plugins
