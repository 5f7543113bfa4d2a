// The last known place of each port: kept by the prober across probes, recovered at start
// from the node's weft.dev/ib-ports annotation, used while a port cannot see its switch.
#include "collectors/ib/prober.h"

namespace weft::ib {

namespace {

std::string key(const PortReport& p) { return p.device + "/" + std::to_string(p.port); }

std::string why_no_leaf(const PortReport& p) {
  if (p.neighbor) return "first-hop neighbour is a " + p.neighbor->type;
  return p.neighbor_reason.empty() ? "first-hop neighbour unknown" : p.neighbor_reason;
}

void remember_fabric(PortReport& p, PortMemo& memo) {
  if (!p.fabric.empty()) {
    memo.fabric = p.fabric;
  } else if (!memo.fabric.empty()) {
    p.fabric = memo.fabric;
    p.fabric_reason = "last known id; now: " + p.fabric_reason;
  } else if (p.fabric_reason.empty()) {
    p.fabric_reason = "subnet id never learnt";
  }
}

void remember_leaf(PortReport& p, PortMemo& memo) {
  if (p.neighbor && p.neighbor->type == "switch") {
    const bool same_leaf = memo.leaf == p.neighbor->node_guid;
    p.leaf = memo.leaf = p.neighbor->node_guid;
    if (!p.uplinks.empty()) p.spine = memo.spine = p.uplinks.front();   // uplinks are sorted
    else if (same_leaf) p.spine = memo.spine;    // uplinks unanswered this time; the leaf did not move
    else memo.spine.clear();
    return;
  }
  if (!memo.leaf.empty()) {
    p.leaf = memo.leaf;
    p.spine = memo.spine;
    p.leaf_reason = "last known; now: " + why_no_leaf(p);
  } else {
    p.leaf_reason = why_no_leaf(p);
  }
}

std::string string_field(const nlohmann::json& o, const char* name) {
  auto it = o.find(name);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

void remember_place(PortReport& p, PortMemory& memory) {
  if (!p.infiniband() || p.backend != "umad") return;   // only umad sees switches and the SA
  PortMemo& memo = memory[key(p)];
  remember_fabric(p, memo);
  remember_leaf(p, memo);
}

PortMemory memory_from_ports_json(const nlohmann::json& ports) {
  PortMemory out;
  if (!ports.is_array()) return out;
  for (const auto& o : ports) {
    if (!o.is_object()) continue;
    auto device = o.find("device"), port = o.find("port");
    if (device == o.end() || !device->is_string() || port == o.end() || !port->is_number_integer()) continue;
    PortMemo m{string_field(o, "fabric"), string_field(o, "leaf"), string_field(o, "spine")};
    if (m.fabric.empty() && m.leaf.empty()) continue;
    out[device->get<std::string>() + "/" + std::to_string(port->get<int>())] = m;
  }
  return out;
}

}  // namespace weft::ib
