// The claims each demo step makes, checked on the cluster as the API has it. Each check
// returns the problems found (empty = the claim holds) and fills what it saw as JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/demo/report/cluster_view.h"

namespace weft::demo {

using Problems = std::vector<std::string>;

// Every agent node (all but the tainted control plane) carries weft.dev/ib-fabric, -leaf
// and -spine, and exactly `fabrics` distinct fabric ids exist. seen: {fabric: {leaves:
// {leaf: [nodes]}, spines: {spine: [nodes]}}}.
Problems check_labels(const ClusterView& v, int fabrics, nlohmann::json& seen);

// Every pod of every job is bound and Running; each gang has at least minMember pods
// running; an `ib-cluster: same` gang sits in one fabric; a hard-tier gang inside one
// domain of its tier (1 leaf, 2 spine, 3 fabric). seen: {job: {kind, minMember, pods:
// [{pod,node,fabric,leaf,spine}], fabrics:[..], leaves:[..], spines:[..]}}.
Problems check_placement(const ClusterView& v, nlohmann::json& seen);

// Each gang keeps at least minMember pods bound (the rebalancer broke none).
Problems check_gangs_whole(const ClusterView& v);

// No node's fabric, leaf or spine label changed between the two views.
Problems compare_labels(const ClusterView& before, const ClusterView& after);

// The nodes to make hot, so that together they show what the rebalancer does: a plain
// pod it can move (always on the first, returned), a pod of a gang at minMember it must
// keep, a pod of a fabric-bound gang above minMember it cannot move out of its domain;
// then more nodes with plain pods until the set holds at least two of them.
// why: {"node": first, "holds", "pods", "fabric" of the first, "nodes": [every hot node
// with the same fields]}.
std::string pick_hot_node(const ClusterView& v, nlohmann::json& why);

}  // namespace weft::demo
