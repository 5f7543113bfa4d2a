// Network domains: Volcano HyperNodes resolved to node sets, or, when a snapshot has
// none, derived from node labels (derived_tiers.h): NVLink domain -> rail group (leaf) ->
// spine -> fabric, each node as deep as its labels go; without NVLink domains the rail
// group is tier 1, the spine tier 2, the fabric tier 3.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

struct Domain {
  std::string name;
  int tier = 1;
  std::string tier_name;        // HyperNode spec.tierName; derived: "nvlink", "leaf", "spine", "fabric", "tier-N"
  std::vector<int> nodes;       // node indices into Snapshot::nodes, ascending
  std::vector<int> children;    // child domain indices
  int parent = -1;
  std::string fabric;           // the one weft.dev/ib-fabric all its nodes share, "" when mixed or unlabelled
  std::vector<HyperNodeMember> members;   // as declared (derived: the selectors we would write)
};

struct Topology {
  bool derived = false;
  std::vector<Domain> domains;                  // sorted by (tier, name)
  std::vector<std::vector<int>> node_domains;   // per node: domains holding it, lowest tier first
  int max_tier = 0;
  // IB clusters: nodes grouped by weft.dev/ib-fabric (sorted by fabric id).
  std::vector<std::pair<std::string, std::vector<int>>> fabrics;
  std::vector<std::string> problems;            // derived: node labels that did not read, named
};

Topology build_topology(const Snapshot& snapshot);

// For `weft-scheduler topology`: HyperNode objects, a Graphviz graph, or JSON.
nlohmann::json hypernode_objects(const Topology& topo);   // a v1 List of HyperNodes
std::string topology_dot(const Topology& topo, const Snapshot& snapshot);
nlohmann::json topology_json(const Topology& topo, const Snapshot& snapshot);

}  // namespace weft::scheduler
