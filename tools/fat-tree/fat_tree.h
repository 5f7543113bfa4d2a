// Fat-tree fabrics for ibsim: 2 levels (leaves under spines) or 3 levels (pods of leaves
// and aggregation switches under core switches), any number of hosts, explicit GUIDs
// distinct per fabric number, and the expected leaf/spine of every host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::fattree {

struct Spec {
  int levels = 2;            // 2 or 3
  int hosts = 16;
  int hosts_per_leaf = 4;
  int spines = 2;            // 2 levels: spine switches, each linked to every leaf
  int leaves_per_pod = 2;    // 3 levels
  int aggs_per_pod = 2;      // 3 levels: each leaf links to every aggregation switch of its pod
  int cores_per_agg = 2;     // 3 levels: agg a of every pod links to cores [a*cpa, (a+1)*cpa)
  int fabric = 1;            // 1..255, goes into every GUID
  std::string prefix;        // name prefix; default "f<fabric>-"
};

struct Switch {
  std::string name;
  std::string tier;          // "leaf" | "spine" | "agg" | "core"
  uint64_t guid = 0;
  int pod = -1;
};

struct Host {
  std::string name;
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  int leaf = 0;              // index into switches
  uint64_t expected_spine = 0;
};

struct Link {
  int a, a_port;             // node index (switches first, then hosts) and port
  int b, b_port;
};

struct FatTree {
  Spec spec;
  std::vector<Switch> switches;
  std::vector<Host> hosts;
  std::vector<Link> links;
  uint64_t fabric_id = 0;    // smallest switch GUID
  int max_switch_ports = 0;  // the largest switch; render_net gives each switch its own port count
};

Status validate(const Spec& spec);
Result<FatTree> build(const Spec& spec);
std::string render_net(const FatTree& tree);     // ibsim .net file
nlohmann::json render_json(const FatTree& tree); // {"fabric_id","levels","hosts":[{"name","leaf","spine",...}],"switches":[...]}
std::string guid_hex(uint64_t guid);             // "0x" + 16 lowercase hex

}  // namespace weft::fattree
