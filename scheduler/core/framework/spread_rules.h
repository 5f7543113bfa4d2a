// Which pods and nodes a topology spread constraint counts, as kube-scheduler's
// PodTopologySpread counts them: the scheduler's plugin and the descheduler's
// RemovePodsViolatingTopologySpreadConstraint (through query/spread.h) both ask these.
#pragma once

#include "scheduler/core/framework/placed_pods.h"

namespace weft::scheduler {

// The pods a spread constraint counts: its selector with matchLabelKeys merged, in the
// owner's namespace.
PodSelection spread_selection(const SpreadConstraint& constraint, const PodInfo& owner);

// Whether a node's pods count for the owner's spread constraint: nodeAffinityPolicy Honor
// (the owner's nodeSelector and required node affinity match it) and nodeTaintsPolicy Honor
// (the owner tolerates its NoSchedule/NoExecute taints).
bool spread_counts_node(const SpreadConstraint& constraint, const PodInfo& owner, const NodeInfo& node);

}  // namespace weft::scheduler
