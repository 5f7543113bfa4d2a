// The scheduler's topology spread rules (its PodTopologySpread plugin's) for a pod's
// constraint, asked by the descheduler's RemovePodsViolatingTopologySpreadConstraint so
// that both count the same pods on the same nodes.
#pragma once

#include <string>

#include "scheduler/core/framework/placed_pods.h"
#include "scheduler/core/framework/spread_rules.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler::query {

// The pods a constraint of `owner` counts: same namespace, its selector with matchLabelKeys
// merged matches, not being deleted.
class SpreadSelection {
 public:
  SpreadSelection(const SpreadConstraint& constraint, const PodInfo& owner);
  bool counts(const Snapshot& snap, const PodInfo& pod) const;

 private:
  PodSelection selection_;
};

// The constraint of `owner` counts the node's pods (nodeAffinityPolicy, nodeTaintsPolicy).
bool spread_counts_node(const SpreadConstraint& constraint, const PodInfo& owner, const NodeInfo& node);

// Equal for constraints that count the same pods on the same nodes (the owner's template,
// namespace and the values of its matchLabelKeys); `index` is the constraint's in the owner.
std::string spread_identity(const PodInfo& owner, size_t index);

}  // namespace weft::scheduler::query
