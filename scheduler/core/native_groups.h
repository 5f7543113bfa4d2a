// The snapshot's side of Kubernetes' gang API (kube/workload.h): scheduling.k8s.io
// PodGroups, CompositePodGroups and Workloads become PodGroupInfo records keyed by
// kube::native_group_key, beside Volcano's PodGroups. Objects are told apart by API group
// and version, never by kind alone.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

// A scheduling.k8s.io PodGroup, CompositePodGroup or Workload added to the snapshot;
// nullopt when the object is none of them (another group, or a PriorityClass).
std::optional<Status> add_native_object(Snapshot& snap, const nlohmann::json& object, const std::string& where);

// The API group an object of a kind weft reads must carry (an absent apiVersion is taken
// as the kind's usual group, as hand-written scenario files omit it).
Status check_api_group(const std::string& kind, const nlohmann::json& object, const std::string& where);

// The key a group object is known by in the snapshot (kube::native_group_key for a
// scheduling.k8s.io PodGroup or CompositePodGroup, "ns/name" for a Volcano PodGroup); ""
// for any other object.
std::string group_key_of(const nlohmann::json& object);
// The same for the group a Pod object names (spec.schedulingGroup, or Volcano's annotation).
std::string pod_group_key_of(const nlohmann::json& pod);

// At build: each CompositePodGroup learns its children (the PodGroups naming it).
void link_composite_groups(Snapshot& snap);

}  // namespace weft::scheduler
