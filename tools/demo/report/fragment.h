// Room per leaf for a gang's pods, and the fillers that fragment every leaf: each keeps
// some room for the gang, but none enough for all of it (the defragment step's start).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tools/demo/report/checks.h"
#include "tools/demo/report/cluster_view.h"

namespace weft::demo {

struct PodShape {
  weft::kube::ResourceList requests;   // e.g. {cpu: 6000, memory: 24Gi in milli-bytes}
};

// How many pods of `shape` the node's free room (allocatable minus requested) holds.
int slots_on(const NodeView& node, const PodShape& shape);

// Per leaf of every fabric: {fabric, leaf, nodes: [{node, slots, free_cpu}], slots, free_cpu}.
nlohmann::json leaf_room(const ClusterView& v, const PodShape& shape);

// Fillers to bind so that no leaf holds more than `max_slots` pods of `gang` (and none
// is filled further than that: each keeps as much of its room as it can). One filler at
// a time goes to the node of the leaf with the most slots (then most free cpu, then
// name). {"fillers": {node: count}, "leaves": leaf_room after the fillers}. A problem
// when a filler does not fit where it is needed.
nlohmann::json plan_fragmentation(const ClusterView& v, const PodShape& gang, int max_slots, const PodShape& filler,
                                  Problems& problems);

// Every leaf holds fewer than `gang_pods` pods of `shape`, and some leaf holds at least
// one (fragmented, not full). seen: leaf_room.
Problems check_fragmented(const ClusterView& v, const PodShape& shape, int gang_pods, nlohmann::json& seen);

}  // namespace weft::demo
