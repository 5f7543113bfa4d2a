// What the pods on each node (bound, or placed earlier in this cycle) hold of the
// storage: the ReadWriteOncePod claims in use (kube-scheduler's VolumeRestrictions) and
// the CSI volumes attached per driver (NodeVolumeLimits against CSINode allocatable).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

inline constexpr const char* kReadWriteOncePodConflict =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";
inline constexpr const char* kMaxVolumeCount = "node(s) exceed max volume count";
inline constexpr const char* kDiskConflict = "node(s) had no available disk";

// A CSI volume as NodeVolumeLimits counts it: (driver, volume handle); an unbound claim
// counts as its class's provisioner and the claim's key.
using CsiVolume = std::pair<std::string, std::string>;
std::vector<CsiVolume> csi_volumes_of(const StorageObjects& storage, const PodInfo& pod);

class PlacedVolumes {
 public:
  // `node_of_pod`: per pod of the snapshot, its node index or -1 (bound pods and this
  // cycle's placements); read at every check.
  PlacedVolumes(const Snapshot& snap, const std::vector<int>& node_of_pod);
  bool any() const { return !users_.empty(); }
  // VolumeRestrictions: a ReadWriteOncePod claim of the pod held by another pod.
  std::string once_pod_reject(int pod) const;
  // VolumeRestrictions: an in-tree disk of the pod another pod on the node mounts in a
  // conflicting way.
  std::string disk_reject(int pod, int node) const;
  // NodeVolumeLimits: the pod's CSI volumes new to the node exceed a driver's count.
  std::string limits_reject(int pod, int node) const;
  // The static volumes other placed pods' unbound claims took (VolumeBinding in the
  // cycle), but for claims the pod shares with them.
  std::set<std::string> taken_volumes(int pod) const;

 private:
  const Snapshot& snap_;
  const std::vector<int>& node_of_pod_;
  std::vector<int> users_;                              // pods with claims or CSI volumes
  std::map<std::string, std::vector<int>> claim_users_;  // claim key -> pods
  std::vector<std::vector<CsiVolume>> csi_;             // per pod (only users_ filled)
};

}  // namespace weft::scheduler
