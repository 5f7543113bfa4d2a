// PodTopologySpread (kube-scheduler's, as Volcano's predicates and nodeorder run it), over
// bound pods and pods placed earlier in this cycle (a gang spreads over itself).
//
// Pods counted: the constraint's selector (with matchLabelKeys merged) in the pod's own
// namespace, not being deleted, on nodes that have every topology key of the pod's
// constraints and pass nodeAffinityPolicy (Honor: the pod's nodeSelector and required
// node affinity) and nodeTaintsPolicy (Honor: its tolerations). Filter (DoNotSchedule):
// on the node's domain, count + (1 if the pod matches the selector) - the smallest count
// over the eligible domains (0 while fewer than minDomains exist) must not exceed maxSkew;
// a node without a key fails. Score (ScheduleAnyway): fewer matching pods in the node's
// domains score higher (each constraint weighted by log(domains + 2), as kube-scheduler),
// normalized to 0..100, times the weight.
//
// kube-scheduler's system default constraints (hostname maxSkew 3, zone maxSkew 5, both
// ScheduleAnyway) select pods by the Services, ReplicaSets, StatefulSets and
// ReplicationControllers that own them; weft does not read those objects, so, as
// kube-scheduler does for a pod no such object selects, no default constraint applies.
#pragma once

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

inline constexpr const char* kSpreadReason = "node(s) didn't match pod topology spread constraints";
inline constexpr const char* kSpreadMissingLabelReason =
    "node(s) didn't match pod topology spread constraints (missing required label)";

// Each registers only when some pod of the snapshot has a constraint of its kind.
void add_pod_topology_spread_filter(Session& ssn, const PluginOption& option);
void add_pod_topology_spread_score(Session& ssn, const PluginOption& option, double weight);

}  // namespace weft::scheduler
