#include "tools/fat-tree/rail_units.h"

#include <algorithm>

#include <fmt/format.h>

namespace weft::fattree {

namespace {

constexpr uint64_t kOui = 0x02c9;
enum Kind : uint64_t { kSpine = 1, kStorageLeaf = 2, kRailLeaf = 3, kHca = 4 };

uint64_t guid(int fabric, Kind kind, uint64_t index) {
  return (kOui << 48) | (static_cast<uint64_t>(fabric) << 40) | (static_cast<uint64_t>(kind) << 32) | (index + 1);
}

// One subnet being built: switches and hosts with their links, as a FatTree.
struct Builder {
  FatTree t;
  std::vector<int> next_port;
  std::vector<int> spines;
  Builder(const RailSpec& s, int fabric, const std::string& prefix) {
    t.spec.levels = 2;
    t.spec.fabric = fabric;
    t.spec.prefix = prefix;
    for (int i = 0; i < s.spines; ++i) spines.push_back(add_switch(fmt::format("{}spine{:02d}", prefix, i), "spine", guid(fabric, kSpine, i)));
  }
  int add_switch(std::string name, std::string tier, uint64_t g) {
    t.switches.push_back({std::move(name), std::move(tier), g, -1});
    next_port.push_back(1);
    return static_cast<int>(t.switches.size()) - 1;
  }
  // A leaf with `down` host ports, linked to every spine after them.
  int add_leaf(std::string name, uint64_t g, int down) {
    const int leaf = add_switch(std::move(name), "leaf", g);
    next_port[leaf] = down + 1;
    for (int sp : spines) t.links.push_back({leaf, next_port[leaf]++, sp, next_port[sp]++});
    return leaf;
  }
  // Hosts are linked once every switch is in (host node indices follow the switches).
  int add_host(std::string name, uint64_t g, int leaf, int leaf_port) {
    Host h;
    h.name = std::move(name);
    h.node_guid = g;
    h.port_guid = g + 1;
    h.leaf = leaf;
    h.expected_spine = t.switches[spines.front()].guid;
    t.hosts.push_back(h);
    pending.push_back({static_cast<int>(t.hosts.size()) - 1, leaf, leaf_port});
    return static_cast<int>(t.hosts.size()) - 1;
  }
  FatTree finish() {
    const int nsw = static_cast<int>(t.switches.size());
    for (const auto& p : pending) t.links.push_back({nsw + p.host, 1, p.leaf, p.port});
    t.fabric_id = UINT64_MAX;
    for (const auto& sw : t.switches) t.fabric_id = std::min(t.fabric_id, sw.guid);
    for (int i = 0; i < nsw; ++i) t.max_switch_ports = std::max(t.max_switch_ports, next_port[i] - 1);
    for (const auto& l : t.links)
      if (l.b < nsw) t.max_switch_ports = std::max(t.max_switch_ports, l.b_port);
    return t;
  }
  struct Pending { int host, leaf, port; };
  std::vector<Pending> pending;
};

}  // namespace

Status validate(const RailSpec& s) {
  if (s.rails < 1 || s.nodes_per_unit < 1 || s.units < 1 || s.planes < 1 || s.spines < 1)
    return make_error("rails, nodes-per-unit, units, planes and spines: must be at least 1");
  if (s.rails % s.planes != 0) return make_error(fmt::format("rails {}: must divide evenly into {} planes", s.rails, s.planes));
  if (s.storage_hcas < 0) return make_error("storage-hcas: must be at least 0");
  const int last_fabric = s.fabric + s.planes + (s.storage_hcas > 0 && s.storage_subnet ? 1 : 0) - 1;
  if (s.fabric < 1 || last_fabric > 255) return make_error(fmt::format("fabric numbers {}..{}: must be within 1..255", s.fabric, last_fabric));
  const int leaves_per_plane = s.units * (s.rails / s.planes + 1);
  if (s.nodes_per_unit * std::max(1, s.storage_hcas) + s.spines > 254 || leaves_per_plane > 254)
    return make_error("a switch would need more than 254 ports");
  return {};
}

Result<RailUnits> build(const RailSpec& spec) {
  if (auto ok = validate(spec); !ok) return ok.error();
  RailUnits u;
  u.spec = spec;
  if (u.spec.prefix.empty()) u.spec.prefix = fmt::format("u{}-", spec.fabric);
  const RailSpec& s = u.spec;
  const int per_plane = s.rails / s.planes;
  const bool storage_alone = s.storage_hcas > 0 && s.storage_subnet;
  std::vector<Builder> b;
  for (int p = 0; p < s.planes; ++p) b.emplace_back(s, s.fabric + p, fmt::format("{}p{}-", s.prefix, p));
  if (storage_alone) b.emplace_back(s, s.fabric + s.planes, s.prefix + "st-");
  const int storage_subnet = storage_alone ? s.planes : 0;

  // Leaves: rail r of unit `unit` (GUIDs rising with unit and rail), one storage leaf per unit.
  std::vector<std::vector<int>> rail_leaf(s.units, std::vector<int>(s.rails));
  std::vector<int> storage_leaf(s.units, -1);
  for (int unit = 0; unit < s.units; ++unit) {
    for (int r = 0; r < s.rails; ++r) {
      Builder& pb = b[r / per_plane];
      rail_leaf[unit][r] = pb.add_leaf(fmt::format("{}su{}-rail{}", pb.t.spec.prefix, unit, r),
                                       guid(pb.t.spec.fabric, kRailLeaf, unit * 256 + r), s.nodes_per_unit);
    }
    if (s.storage_hcas > 0) {
      Builder& sb = b[storage_subnet];
      storage_leaf[unit] = sb.add_leaf(fmt::format("{}su{}-storage", sb.t.spec.prefix, unit),
                                       guid(sb.t.spec.fabric, kStorageLeaf, unit), s.nodes_per_unit * s.storage_hcas);
    }
  }
  for (int unit = 0, n = 0; unit < s.units; ++unit) {
    for (int k = 0; k < s.nodes_per_unit; ++k, ++n) {
      RailNode node;
      node.name = fmt::format("{}n{:03d}", s.prefix, n);
      node.unit = unit;
      node.rail_group = UINT64_MAX;
      for (int i = 0; i < s.rails + s.storage_hcas; ++i) {
        RailHca h;
        h.device = fmt::format("mlx5_{}", i);
        h.compute = i < s.rails;
        h.subnet = h.compute ? i / per_plane : storage_subnet;
        Builder& hb = b[h.subnet];
        const int leaf = h.compute ? rail_leaf[unit][i] : storage_leaf[unit];
        const int port = h.compute ? k + 1 : k * s.storage_hcas + (i - s.rails) + 1;
        h.host = hb.add_host(node.name + "-" + h.device, guid(hb.t.spec.fabric, kHca, (static_cast<uint64_t>(n) * 64 + i) * 0x10), leaf, port);
        if (h.compute) {
          node.rail_group = std::min(node.rail_group, hb.t.switches[leaf].guid);
          const uint64_t spine = hb.t.switches[hb.spines.front()].guid;
          node.spine = node.spine ? std::min(node.spine, spine) : spine;
        }
        node.hcas.push_back(h);
      }
      u.nodes.push_back(std::move(node));
    }
  }
  for (auto& sub : b) u.subnets.push_back(sub.finish());
  return u;
}

nlohmann::json render_json(const RailUnits& u) {
  nlohmann::json j;
  j["nodes"] = nlohmann::json::array();
  for (const auto& n : u.nodes) {
    nlohmann::json hcas = nlohmann::json::array();
    for (const auto& h : n.hcas)
      hcas.push_back({{"device", h.device}, {"compute", h.compute}, {"subnet", h.subnet},
                      {"node", u.subnets[h.subnet].hosts[h.host].name}});
    j["nodes"].push_back({{"name", n.name}, {"unit", n.unit}, {"rail_group", guid_hex(n.rail_group)},
                          {"spine", guid_hex(n.spine)}, {"hcas", hcas}});
  }
  j["subnets"] = nlohmann::json::array();
  for (const auto& t : u.subnets) j["subnets"].push_back(render_json(t));
  return j;
}

}  // namespace weft::fattree
