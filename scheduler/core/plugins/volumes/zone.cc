#include "scheduler/core/plugins/volumes/zone.h"

#include <array>

namespace weft::scheduler {
namespace {

const std::array<std::pair<const char*, const char*>, 4> kTopologyLabels = {{
    {"topology.kubernetes.io/zone", "topology.kubernetes.io/zone"},
    {"topology.kubernetes.io/region", "topology.kubernetes.io/region"},
    {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"},       // beta label, its GA twin
    {"failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"},
}};

bool listed(const std::string& values, const std::string& value) {
  size_t start = 0;
  while (true) {
    size_t end = values.find("__", start);
    if (values.compare(start, end == std::string::npos ? std::string::npos : end - start, value) == 0) return true;
    if (end == std::string::npos) return false;
    start = end + 2;
  }
}

}  // namespace

std::string volume_zone_reject(const StorageObjects& storage, const PodInfo& pod, const NodeInfo& node) {
  if (!pod.volumes) return "";
  bool node_has_topology = false;
  for (const auto& [label, ga] : kTopologyLabels) node_has_topology = node_has_topology || node.labels.find(label);
  if (!node_has_topology) return "";
  for (const auto& v : pod.volumes->volumes) {
    if (v.claim.empty()) continue;
    const ClaimInfo* c = storage.claim(std::string(pod.namespace_name) + "/" + v.claim);
    if (!c || c->volume_name.empty()) continue;   // unbound: VolumeBinding says why
    const PersistentVolumeInfo* pv = storage.volume(c->volume_name);
    if (!pv) continue;
    for (const auto& [label, ga] : kTopologyLabels) {
      auto it = pv->labels.find(label);
      if (it == pv->labels.end()) continue;
      const std::string* value = node.labels.find(label);
      if (!value) value = node.labels.find(ga);
      if (!value || !listed(it->second, *value)) return kVolumeZoneConflict;
    }
  }
  return "";
}

}  // namespace weft::scheduler
