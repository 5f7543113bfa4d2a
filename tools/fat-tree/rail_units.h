// Rail-optimized scalable units for ibsim: every node has `rails` compute HCAs, HCA r of
// every node of a unit on that unit's rail-r leaf (one hop between any two nodes on one
// rail), all leaves of a plane under its spines. Planes split the rails over several
// subnets; storage HCAs sit on a subnet of their own (its own SM) or on storage leaves of
// compute plane 0, whose GUIDs are smaller than every rail leaf's (so a probe that counts
// them as compute would pick one as the node's group).
#pragma once

#include <string>
#include <vector>

#include "tools/fat-tree/fat_tree.h"

namespace weft::fattree {

struct RailSpec {
  int rails = 8;               // compute HCAs per node
  int nodes_per_unit = 4;
  int units = 2;
  int planes = 1;              // compute subnets; rails divide evenly among them
  int spines = 2;              // per subnet
  int storage_hcas = 0;        // per node
  bool storage_subnet = true;  // storage HCAs on their own subnet; false: on compute plane 0
  int fabric = 1;              // plane p has fabric number fabric + p, the storage subnet fabric + planes
  std::string prefix;          // node name prefix; default "u<fabric>-"
};

struct RailHca {
  std::string device;          // "mlx5_<i>": compute first, then storage
  bool compute = true;
  int subnet = 0;              // index into RailUnits::subnets
  int host = 0;                // index into that subnet's hosts (its ibsim node)
};

struct RailNode {
  std::string name;            // "<prefix>n<NNN>"
  int unit = 0;
  std::vector<RailHca> hcas;
  uint64_t rail_group = 0;     // the smallest rail leaf GUID over its compute HCAs
  uint64_t spine = 0;          // the smallest spine GUID above them
};

struct RailUnits {
  RailSpec spec;
  std::vector<FatTree> subnets;   // compute planes, then the storage subnet when it has one
  std::vector<RailNode> nodes;
};

Status validate(const RailSpec& spec);
Result<RailUnits> build(const RailSpec& spec);
// {"nodes":[{"name","unit","rail_group","spine","hcas":[{"device","compute","subnet","node"}]}],
//  "subnets":[<render_json of each>]}
nlohmann::json render_json(const RailUnits& units);

}  // namespace weft::fattree
