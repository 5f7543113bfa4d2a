#include "tools/fat-tree/fat_tree.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace weft::fattree {

std::string guid_hex(uint64_t guid) { return fmt::format("0x{:016x}", guid); }

namespace {

constexpr uint64_t kOui = 0x02c9;   // in the top bits, as vendors do
enum Kind : uint64_t { kCore = 1, kAgg = 2, kLeaf = 3, kHost = 4 };

// GUIDs run against the order of the names within a group, so "smallest GUID" and
// "first listed" differ and a probe that takes the first switch would be caught.
uint64_t make_guid(int fabric, Kind kind, int index, int count, uint64_t step = 1) {
  const uint64_t reversed = static_cast<uint64_t>(count - 1 - index);
  return (kOui << 48) | (static_cast<uint64_t>(fabric) << 40) | (static_cast<uint64_t>(kind) << 32) |
         ((reversed + 1) * step);
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace

Status validate(const Spec& s) {
  if (s.levels != 2 && s.levels != 3) return make_error(fmt::format("levels {}: must be 2 or 3", s.levels));
  if (s.hosts < 1) return make_error("hosts: must be at least 1");
  if (s.hosts_per_leaf < 1) return make_error("hosts-per-leaf: must be at least 1");
  if (s.fabric < 1 || s.fabric > 255) return make_error(fmt::format("fabric {}: must be 1..255", s.fabric));
  if (s.levels == 2 && s.spines < 1) return make_error("spines: must be at least 1");
  if (s.levels == 3 && (s.leaves_per_pod < 1 || s.aggs_per_pod < 1 || s.cores_per_agg < 1))
    return make_error("leaves-per-pod, aggs-per-pod and cores-per-agg: must be at least 1");
  const int leaves = ceil_div(s.hosts, s.hosts_per_leaf);
  int max_ports = 0;
  if (s.levels == 2) {
    max_ports = std::max(s.hosts_per_leaf + s.spines, leaves);
  } else {
    const int pods = ceil_div(leaves, s.leaves_per_pod);
    max_ports = std::max({s.hosts_per_leaf + s.aggs_per_pod, s.leaves_per_pod + s.cores_per_agg, pods});
  }
  if (max_ports > 254) return make_error(fmt::format("a switch would need {} ports; at most 254", max_ports));
  return {};
}

Result<FatTree> build(const Spec& spec) {
  if (auto ok = validate(spec); !ok) return ok.error();
  FatTree t;
  t.spec = spec;
  if (t.spec.prefix.empty()) t.spec.prefix = fmt::format("f{}-", spec.fabric);
  const Spec& s = t.spec;
  const int leaves = ceil_div(s.hosts, s.hosts_per_leaf);
  std::vector<int> next_port;   // per switch: next free port
  auto add_switch = [&](std::string name, std::string tier, uint64_t guid, int pod) {
    t.switches.push_back({std::move(name), std::move(tier), guid, pod});
    next_port.push_back(1);
    return static_cast<int>(t.switches.size()) - 1;
  };
  auto link_switches = [&](int a, int b) {
    t.links.push_back({a, next_port[a]++, b, next_port[b]++});
  };

  std::vector<int> leaf_ids;
  std::vector<std::vector<int>> above_leaf(leaves);   // switches one hop above each leaf
  if (s.levels == 2) {
    std::vector<int> spine_ids;
    for (int i = 0; i < s.spines; ++i)
      spine_ids.push_back(add_switch(fmt::format("{}spine{:02d}", s.prefix, i), "spine", make_guid(s.fabric, kCore, i, s.spines), -1));
    for (int i = 0; i < leaves; ++i)
      leaf_ids.push_back(add_switch(fmt::format("{}leaf{:03d}", s.prefix, i), "leaf", make_guid(s.fabric, kLeaf, i, leaves), -1));
    // Host ports first on each leaf, uplinks after them.
    for (int l : leaf_ids) next_port[l] = s.hosts_per_leaf + 1;
    for (int i = 0; i < leaves; ++i) {
      for (int sp : spine_ids) {
        link_switches(leaf_ids[i], sp);
        above_leaf[i].push_back(sp);
      }
    }
  } else {
    const int pods = ceil_div(leaves, s.leaves_per_pod);
    const int cores = s.aggs_per_pod * s.cores_per_agg;
    const int aggs = pods * s.aggs_per_pod;
    std::vector<int> core_ids, agg_ids;
    for (int i = 0; i < cores; ++i)
      core_ids.push_back(add_switch(fmt::format("{}core{:02d}", s.prefix, i), "core", make_guid(s.fabric, kCore, i, cores), -1));
    for (int p = 0; p < pods; ++p)
      for (int a = 0; a < s.aggs_per_pod; ++a) {
        const int i = p * s.aggs_per_pod + a;
        agg_ids.push_back(add_switch(fmt::format("{}agg{:02d}-{}", s.prefix, p, a), "agg", make_guid(s.fabric, kAgg, i, aggs), p));
      }
    for (int i = 0; i < leaves; ++i)
      leaf_ids.push_back(add_switch(fmt::format("{}leaf{:03d}", s.prefix, i), "leaf", make_guid(s.fabric, kLeaf, i, leaves), i / s.leaves_per_pod));
    for (int l : leaf_ids) next_port[l] = s.hosts_per_leaf + 1;
    for (int i = 0; i < leaves; ++i) {
      const int pod = i / s.leaves_per_pod;
      for (int a = 0; a < s.aggs_per_pod; ++a) {
        const int agg = agg_ids[pod * s.aggs_per_pod + a];
        link_switches(leaf_ids[i], agg);
        above_leaf[i].push_back(agg);
      }
    }
    // Down-links of an aggregation switch come first: start its uplinks after them.
    for (int agg : agg_ids) next_port[agg] = s.leaves_per_pod + 1;
    for (int p = 0; p < pods; ++p)
      for (int a = 0; a < s.aggs_per_pod; ++a)
        for (int c = 0; c < s.cores_per_agg; ++c) link_switches(agg_ids[p * s.aggs_per_pod + a], core_ids[a * s.cores_per_agg + c]);
  }

  const int nsw = static_cast<int>(t.switches.size());
  for (int h = 0; h < s.hosts; ++h) {
    Host host;
    host.name = fmt::format("{}h{:04d}", s.prefix, h);
    host.node_guid = make_guid(s.fabric, kHost, h, s.hosts, 0x10);   // port GUIDs are node GUID + port
    host.port_guid = host.node_guid + 1;
    const int li = h / s.hosts_per_leaf;
    host.leaf = leaf_ids[li];
    host.expected_spine = UINT64_MAX;
    for (int up : above_leaf[li]) host.expected_spine = std::min(host.expected_spine, t.switches[up].guid);
    t.links.push_back({nsw + h, 1, leaf_ids[li], h % s.hosts_per_leaf + 1});
    t.hosts.push_back(host);
  }
  t.fabric_id = UINT64_MAX;
  for (const auto& sw : t.switches) t.fabric_id = std::min(t.fabric_id, sw.guid);
  for (size_t i = 0; i < t.switches.size(); ++i) t.max_switch_ports = std::max(t.max_switch_ports, next_port[i] - 1);
  for (const auto& l : t.links) {
    if (l.b < nsw) t.max_switch_ports = std::max(t.max_switch_ports, l.b_port);
  }
  return t;
}

std::string render_net(const FatTree& t) {
  const int nsw = static_cast<int>(t.switches.size());
  std::map<int, std::map<int, std::pair<int, int>>> ports;   // node -> port -> (peer, peer port)
  for (const auto& l : t.links) {
    ports[l.a][l.a_port] = {l.b, l.b_port};
    ports[l.b][l.b_port] = {l.a, l.a_port};
  }
  auto name = [&](int n) { return n < nsw ? t.switches[n].name : t.hosts[n - nsw].name; };
  std::string out = fmt::format("# weft-fat-tree: {} levels, {} hosts, {} switches, fabric {} (id {})\n\n",
                                t.spec.levels, t.hosts.size(), t.switches.size(), t.spec.fabric, guid_hex(t.fabric_id));
  for (int n = 0; n < nsw + static_cast<int>(t.hosts.size()); ++n) {
    if (n < nsw) {
      // Each switch as fully cabled: as many ports as it has links (a leaf of 32 hosts and
      // 32 spines is a 64-port switch), not the fabric's largest radix everywhere.
      const int nports = ports[n].empty() ? 1 : ports[n].rbegin()->first;
      out += fmt::format("switchguid={}\nSwitch {} \"{}\"\n", guid_hex(t.switches[n].guid), nports, name(n));
    } else {
      out += fmt::format("caguid={}\nHca 1 \"{}\"\n", guid_hex(t.hosts[n - nsw].node_guid), name(n));
    }
    for (const auto& [p, peer] : ports[n]) out += fmt::format("[{}] \"{}\"[{}]\n", p, name(peer.first), peer.second);
    out += "\n";
  }
  return out;
}

nlohmann::json render_json(const FatTree& t) {
  nlohmann::json j;
  j["levels"] = t.spec.levels;
  j["fabric"] = t.spec.fabric;
  j["fabric_id"] = guid_hex(t.fabric_id);
  j["switches"] = nlohmann::json::array();
  for (const auto& s : t.switches) {
    nlohmann::json sw = {{"name", s.name}, {"tier", s.tier}, {"guid", guid_hex(s.guid)}};
    if (s.pod >= 0) sw["pod"] = s.pod;
    j["switches"].push_back(sw);
  }
  j["hosts"] = nlohmann::json::array();
  for (const auto& h : t.hosts) {
    j["hosts"].push_back({{"name", h.name}, {"node_guid", guid_hex(h.node_guid)}, {"port_guid", guid_hex(h.port_guid)},
                          {"leaf", guid_hex(t.switches[h.leaf].guid)}, {"leaf_name", t.switches[h.leaf].name},
                          {"spine", guid_hex(h.expected_spine)}});
  }
  return j;
}

}  // namespace weft::fattree
