// InterPodAffinity (kube-scheduler's, as Volcano's predicates and nodeorder run it), over
// bound pods and the pods placed earlier in this cycle (a gang's own members included).
//
// Filter: the pod's required anti-affinity terms (no matching pod in the node's domain;
// a node without the topology label passes), its required affinity terms (a pod matching
// every term in the node's domain for each term; a node without a term's label fails;
// the first pod of a group affine to itself passes where no such pod exists yet), and
// the required anti-affinity of pods already placed toward it.
// Score: its preferred terms (+weight affinity, -weight anti-affinity) per matching pod
// in the node's domain, and placed pods' preferred terms and required affinity (weight 1)
// toward it; normalized to 0..100 over the candidate nodes, times the weight.
#pragma once

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

inline constexpr const char* kAffinityReason = "node(s) didn't match pod affinity rules";
inline constexpr const char* kAntiAffinityReason = "node(s) didn't match pod anti-affinity rules";
inline constexpr const char* kExistingAntiAffinityReason = "node(s) didn't satisfy existing pods anti-affinity rules";

// Each registers only when some pod of the snapshot has a term of the kind it uses.
void add_inter_pod_affinity_filter(Session& ssn, const PluginOption& option);
void add_inter_pod_affinity_score(Session& ssn, const PluginOption& option, double weight);

}  // namespace weft::scheduler
