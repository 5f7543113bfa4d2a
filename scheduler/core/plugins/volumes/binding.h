// kube-scheduler's VolumeBinding over the snapshot: where a pod's claims can be used. A
// bound claim follows its PersistentVolume's node affinity; an unbound claim of an
// Immediate class (or pre-bound to a volume) waits for the PV controller; a claim of a
// WaitForFirstConsumer class takes the smallest available matching static volume on the
// node, else is provisioned there when its class's allowedTopologies allow the node.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "scheduler/core/session.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

// The reasons kube-scheduler reports.
inline constexpr const char* kUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims";
inline constexpr const char* kBindConflict = "node(s) didn't find available persistent volumes to bind";
inline constexpr const char* kVolumeNodeConflict = "node(s) had volume node affinity conflict";
inline constexpr const char* kVolumeMissing = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

// What binding a claim of the pod on a node takes: a static volume, or provisioning there.
struct ClaimPlan {
  std::string claim;     // "ns/name"
  std::string volume;    // the static PV to bind; "" when provisioned on the node
};

// Why the pod's claims rule out every node ("" when they do not): a claim missing,
// lost, being deleted, not the pod's own (ephemeral), or unbound and not delayed.
std::string claims_reject_pod(const StorageObjects& storage, const PodInfo& pod);
// Why the pod's claims rule out the node ("" when they fit); `taken`: static volumes
// chosen for other claims this cycle. `plans` (optional) receives the unbound claims' plans.
std::string claims_reject_node(const StorageObjects& storage, const PodInfo& pod, const NodeInfo& node,
                               const std::set<std::string>& taken, std::vector<ClaimPlan>* plans = nullptr);

// kube-scheduler's PreBind for the cycle's bindings, in order (ClaimWrite, storage.h).
std::vector<ClaimWrite> prebind_writes(const Snapshot& snap, const std::vector<Binding>& bindings);

}  // namespace weft::scheduler
