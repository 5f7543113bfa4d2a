// The tiers derived from node labels when no HyperNode is declared. Each node is as deep
// as its labels go, lowest first:
//   NVLink domain   weft.dev/nvlink-domain, else Topograph's accelerator.topograph.run/domain
//                   (or network.topology.nvidia.com/accelerator), else nvidia.com/gpu.clique
//   rail group      weft.dev/ib-leaf            | fabric.topograph.run/tier-0 (…/leaf)
//   spine           weft.dev/ib-spine           | fabric.topograph.run/tier-1 (…/spine)
//   fabric          weft.dev/ib-fabric          | fabric.topograph.run/tier-N, N >= 2 (…/core)
// A node with weft.dev/ib-fabric (a weft agent runs there) uses the weft labels; one without
// uses Topograph's. Tier numbers count from the lowest level any node has: without NVLink
// domains the rail group is tier 1 (as before they existed); with one anywhere, the NVLink
// domain is tier 1 and every switch level one higher, a node without a domain starting at
// its rail group (tier 2).
#pragma once

#include <string>
#include <vector>

#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

struct Domain;

// One level of one node's chain.
struct NodeLevel {
  int rank = 0;                 // 0 NVLink domain, 1 rail group, 2 spine, 3 fabric / tier-2, 4 tier-3, ...
  std::string scope;            // domains are one per (rank, scope, value): the IB fabric, "topograph" or ""
  std::string value;
  std::string tier_name;        // "nvlink", "leaf", "spine", "fabric", "tier-N"
  std::string name_prefix;      // "nvlink-", "leaf-", ...
  kube::Labels selector;        // labels every node of the level has (for HyperNode output)
};

// The node's label `key`, "" when it has none.
std::string label_or(const NodeInfo& node, const char* key);

// The node's levels, lowest first; `problems` gets labels that do not read (named).
std::vector<NodeLevel> node_levels(const NodeInfo& node, std::vector<std::string>* problems = nullptr);

// The derived domains (unsorted; parents set, "the first node decides"), tiers numbered.
std::vector<Domain> derive_domains(const Snapshot& snapshot, std::vector<std::string>* problems = nullptr);

}  // namespace weft::scheduler
