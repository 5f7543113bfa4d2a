// kube-scheduler's VolumeZone: a bound claim's volume labelled with zones or regions
// (values joined by "__") only goes to nodes in one of them; a node with no zone or
// region label at all takes any volume.
#pragma once

#include <string>

#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

inline constexpr const char* kVolumeZoneConflict = "node(s) had no available volume zone";

std::string volume_zone_reject(const StorageObjects& storage, const PodInfo& pod, const NodeInfo& node);

}  // namespace weft::scheduler
