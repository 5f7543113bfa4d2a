#include "scheduler/core/plugins/volumes/placed.h"

#include "scheduler/core/plugins/volumes/binding.h"

namespace weft::scheduler {

std::vector<CsiVolume> csi_volumes_of(const StorageObjects& storage, const PodInfo& pod) {
  std::vector<CsiVolume> out;
  if (!pod.volumes) return out;
  for (const auto& v : pod.volumes->volumes) {
    if (v.claim.empty()) continue;   // inline CSI volumes are not counted (only migrated in-tree ones are)
    const std::string key = std::string(pod.namespace_name) + "/" + v.claim;
    const ClaimInfo* c = storage.claim(key);
    if (!c) continue;
    if (!c->volume_name.empty()) {
      const PersistentVolumeInfo* pv = storage.volume(c->volume_name);
      if (pv && !pv->csi_driver.empty()) out.push_back({pv->csi_driver, pv->csi_handle});
      continue;
    }
    const StorageClassInfo* cls = storage.storage_class(c->storage_class);
    if (cls && !cls->provisioner.empty()) out.push_back({cls->provisioner, key});
  }
  return out;
}

PlacedVolumes::PlacedVolumes(const Snapshot& snap, const std::vector<int>& node_of_pod)
    : snap_(snap), node_of_pod_(node_of_pod) {
  csi_.resize(snap.pods.size());
  for (size_t i = 0; i < snap.pods.size(); ++i) {
    const PodInfo& p = snap.pods[i];
    if (!p.volumes || p.terminal()) continue;
    users_.push_back(static_cast<int>(i));
    csi_[i] = csi_volumes_of(snap.storage, p);
    for (const auto& v : p.volumes->volumes)
      if (!v.claim.empty()) claim_users_[std::string(p.namespace_name) + "/" + v.claim].push_back(static_cast<int>(i));
  }
}

std::string PlacedVolumes::once_pod_reject(int pod) const {
  const PodInfo& p = snap_.pods[pod];
  if (!p.volumes) return "";
  for (const auto& v : p.volumes->volumes) {
    if (v.claim.empty()) continue;
    const std::string key = std::string(p.namespace_name) + "/" + v.claim;
    const ClaimInfo* c = snap_.storage.claim(key);
    if (!c || !c->read_write_once_pod()) continue;
    for (int other : claim_users_.at(key))
      if (other != pod && node_of_pod_[other] >= 0) return kReadWriteOncePodConflict;
  }
  return "";
}

std::string PlacedVolumes::disk_reject(int pod, int node) const {
  for (const auto& mine : snap_.pods[pod].volumes->volumes) {
    if (mine.disk_type.empty()) continue;
    for (int other : users_) {
      if (other == pod || node_of_pod_[other] != node) continue;
      for (const auto& theirs : snap_.pods[other].volumes->volumes)
        if (mine.conflicts_with(theirs)) return kDiskConflict;
    }
  }
  return "";
}

std::string PlacedVolumes::limits_reject(int pod, int node) const {
  const auto& mine = csi_[pod];
  if (mine.empty()) return "";
  auto limits = snap_.storage.csi_nodes.find(snap_.nodes[node].name);
  if (limits == snap_.storage.csi_nodes.end() || limits->second.limits.empty()) return "";
  std::set<CsiVolume> attached;
  for (int other : users_)
    if (other != pod && node_of_pod_[other] == node) attached.insert(csi_[other].begin(), csi_[other].end());
  std::map<std::string, int64_t> count;
  for (const auto& v : attached) ++count[v.first];
  for (const auto& v : std::set<CsiVolume>(mine.begin(), mine.end()))
    if (!attached.count(v)) ++count[v.first];
  for (const auto& [driver, n] : count) {
    auto limit = limits->second.limits.find(driver);
    if (limit != limits->second.limits.end() && n > limit->second) return kMaxVolumeCount;
  }
  return "";
}

std::set<std::string> PlacedVolumes::taken_volumes(int pod) const {
  std::set<std::string> taken, own;
  const PodInfo& p = snap_.pods[pod];
  if (p.volumes)
    for (const auto& v : p.volumes->volumes) own.insert(std::string(p.namespace_name) + "/" + v.claim);
  for (int other : users_) {
    if (other == pod || node_of_pod_[other] < 0 || snap_.pods[other].bound()) continue;
    std::vector<ClaimPlan> plans;
    claims_reject_node(snap_.storage, snap_.pods[other], snap_.nodes[node_of_pod_[other]], taken, &plans);
    for (const auto& plan : plans)
      if (!plan.volume.empty() && !own.count(plan.claim)) taken.insert(plan.volume);
  }
  return taken;
}

}  // namespace weft::scheduler
