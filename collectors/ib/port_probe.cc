#include "collectors/ib/port_probe.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "collectors/ib/attributes.h"

namespace weft::ib {

namespace {

constexpr uint8_t kNodeSwitch = 2;
constexpr int kStateInit = 2;
constexpr int kStateActive = 4;
constexpr int kPhysLinkUp = 5;

// A round of queries sent together; each entry remembers what to do with its reply.
class Round {
 public:
  size_t add(Result<MadRequest> r, std::vector<std::string>& errors) {
    if (!r) {
      errors.push_back(r.message());
      return SIZE_MAX;
    }
    requests_.push_back(std::move(r.value()));
    return requests_.size() - 1;
  }
  size_t add(MadRequest r) {
    requests_.push_back(std::move(r));
    return requests_.size() - 1;
  }
  void run(MadTransport& t, const MadPolicy& p) {
    if (!requests_.empty()) replies_ = exchange_checked(t, requests_, p);
  }
  bool has(size_t i) const { return i < replies_.size(); }
  const Result<Bytes>& reply(size_t i) const { return replies_[i]; }

 private:
  std::vector<MadRequest> requests_;
  std::vector<Result<Bytes>> replies_;
};

MadDestination dr(std::vector<uint8_t> path) {
  MadDestination d;
  d.dr_path = std::move(path);
  return d;
}

MadDestination lid(uint16_t l) {
  MadDestination d;
  d.lid = l;
  return d;
}

// Parses a reply with f, or records the error; returns whether it worked.
template <class T, class F>
std::optional<T> take(const Round& round, size_t i, F parse, std::vector<std::string>& errors,
                      std::string* reason = nullptr) {
  if (!round.has(i)) return std::nullopt;
  const auto& r = round.reply(i);
  if (!r) {
    errors.push_back(r.message());
    if (reason) *reason = r.message();
    return std::nullopt;
  }
  auto parsed = parse(std::span<const uint8_t>(r.value()));
  if (!parsed) {
    errors.push_back(parsed.message());
    if (reason) *reason = parsed.message();
    return std::nullopt;
  }
  return std::move(parsed.value());
}

void apply_port_info(const PortInfo& pi, PortReport& r) {
  r.state = port_state_name(pi.port_state);
  r.phys_state = phys_state_name(pi.phys_state);
  r.lid = pi.lid;
  r.sm_lid = pi.sm_lid;
  r.subnet_prefix = guid_string(pi.gid_prefix);
  r.width = width_name(pi.link_width_active);
  r.speed = speed_name(pi.link_speed_active, pi.link_speed_ext_active);
  const double rate = width_lanes(pi.link_width_active) * lane_gbps(pi.link_speed_active, pi.link_speed_ext_active);
  if (rate > 0) r.rate_gbps = rate;
}

std::optional<uint64_t> smallest_switch(const std::vector<NodeRecord>& records, bool switches_only) {
  std::optional<uint64_t> best;
  for (const auto& rec : records) {
    if (switches_only && rec.info.node_type != kNodeSwitch) continue;
    if (!best || rec.info.node_guid < *best) best = rec.info.node_guid;
  }
  return best;
}

// PortInfo of every other port of the first-hop switch (which are linked), then NodeInfo
// through each linked one: the switches among them are the uplinks.
LeafWalk walk_leaf(MadTransport& t, const MadPolicy& policy, uint8_t port, const NodeInfo& leaf,
                   std::vector<std::string>& errors) {
  Round c;
  std::vector<std::pair<uint8_t, size_t>> leaf_ports;
  for (int q = 1; q <= leaf.num_ports; ++q) {
    if (q == leaf.local_port) continue;
    leaf_ports.emplace_back(q, c.add(smp_get(dr({0, port}), kAttrPortInfo, static_cast<uint32_t>(q)), errors));
  }
  c.run(t, policy);
  Round d;
  std::vector<size_t> up;
  int port_errors = 0;
  for (auto [q, idx] : leaf_ports) {
    std::string why;
    auto pi = take<PortInfo>(c, idx, parse_port_info, errors, &why);
    if (!pi) {
      ++port_errors;
      continue;
    }
    if (pi->port_state < kStateInit || pi->phys_state != kPhysLinkUp) continue;
    up.push_back(d.add(smp_get(dr({0, port, q}), kAttrNodeInfo, 0), errors));
  }
  d.run(t, policy);
  std::set<uint64_t> uplinks;
  int node_errors = 0;
  for (size_t idx : up) {
    if (auto n = take<NodeInfo>(d, idx, parse_node_info, errors)) {
      if (n->node_type == kNodeSwitch) uplinks.insert(n->node_guid);
    } else {
      ++node_errors;
    }
  }
  LeafWalk w;
  for (uint64_t g : uplinks) w.uplinks.push_back(guid_string(g));
  if (w.uplinks.empty()) {
    w.reason = (port_errors || node_errors)
                   ? fmt::format("no switch found above the first-hop switch ({} queries failed)", port_errors + node_errors)
                   : "the first-hop switch has no other switch linked to it";
  }
  return w;
}

}  // namespace

PortReport probe_umad_port(const LocalPort& lp, MadTransport& t, const PortProbeOptions& o) {
  PortReport r;
  r.device = lp.device;
  r.port = lp.port;
  r.backend = "umad";
  r.state = port_state_name(static_cast<uint8_t>(lp.state));
  r.phys_state = phys_state_name(static_cast<uint8_t>(lp.phys_state));
  r.link_layer = lp.link_layer;
  r.lid = lp.lid;
  r.sm_lid = lp.sm_lid;
  r.port_guid = guid_string(lp.port_guid);
  r.node_guid = guid_string(lp.node_guid);
  r.subnet_prefix = guid_string(lp.gid_prefix);
  r.rate_gbps = lp.rate_gbps;
  const uint8_t port = static_cast<uint8_t>(lp.port);

  // Round 1: the port's own PortInfo (fresher than sysfs: state, LIDs, width, speed).
  int state = lp.state, phys = lp.phys_state;
  {
    Round a;
    size_t pi = a.add(smp_get(dr({0}), kAttrPortInfo, port), r.errors);
    a.run(t, o.policy);
    if (auto info = take<PortInfo>(a, pi, parse_port_info, r.errors)) {
      apply_port_info(*info, r);
      state = info->port_state;
      phys = info->phys_state;
    }
  }
  const bool link_up = phys == kPhysLinkUp;
  const bool active = state == kStateActive;
  const std::string not_up = fmt::format("port is {} ({})", r.state, r.phys_state);

  // Round 2: neighbour, SM, subnet id, counters.
  Round b;
  size_t ni = SIZE_MAX, nd = SIZE_MAX, sm = SIZE_MAX, sa = SIZE_MAX, pc = SIZE_MAX, pcx = SIZE_MAX;
  if (link_up) {
    ni = b.add(smp_get(dr({0, port}), kAttrNodeInfo, 0), r.errors);
    nd = b.add(smp_get(dr({0, port}), kAttrNodeDescription, 0), r.errors);
  } else {
    r.neighbor_reason = r.uplinks_reason = not_up;
  }
  if (r.sm_lid != 0 && r.lid != 0 && state >= kStateInit) {
    sm = b.add(smp_get(lid(r.sm_lid), kAttrSmInfo, 0), r.errors);
  } else {
    r.sm_reason = r.sm_lid == 0 ? "port has no SM LID: no subnet manager has configured it" : not_up;
  }
  if (r.sm_lid != 0 && active) {
    sa = b.add(sa_node_records(r.sm_lid, kNodeSwitch));
  } else {
    r.fabric_reason = r.sm_lid == 0 ? "no subnet manager: port SM LID is 0, so no SA to ask"
                                    : not_up + ": the SA answers only an ACTIVE port";
  }
  if (o.counters && active && r.lid != 0) {
    pc = b.add(perf_get(r.lid, kAttrPortCounters, port));
    pcx = b.add(perf_get(r.lid, kAttrPortCountersExt, port));
  } else if (!o.counters) {
    r.counters_reason = "counters not requested";
  } else {
    r.counters_reason = not_up + ": PerfMgt needs an ACTIVE port";
  }
  b.run(t, o.policy);

  std::optional<NodeInfo> neighbor = take<NodeInfo>(b, ni, parse_node_info, r.errors, &r.neighbor_reason);
  if (neighbor) {
    NeighborReport n;
    n.node_guid = guid_string(neighbor->node_guid);
    n.type = node_type_name(neighbor->node_type);
    n.port = neighbor->local_port;
    if (auto desc = take<std::string>(b, nd, parse_node_description, r.errors)) n.description = *desc;
    r.neighbor = n;
  }
  if (auto s = take<SmInfo>(b, sm, parse_sm_info, r.errors, &r.sm_reason)) {
    r.sm = SmReport{r.sm_lid, guid_string(s->guid), s->priority, sm_state_name(s->state)};
  }
  bool need_all_nodes = false;
  if (sa != SIZE_MAX) {
    std::string why;
    if (auto recs = take<std::vector<NodeRecord>>(b, sa, parse_node_records, r.errors, &why)) {
      if (auto g = smallest_switch(*recs, true)) {
        r.fabric = guid_string(*g);
      } else {
        need_all_nodes = true;   // a subnet without switches (back-to-back): smallest node GUID
      }
    } else if (b.has(sa) && !b.reply(sa) && b.reply(sa).error().code == 0x0300) {
      need_all_nodes = true;     // ERR_NO_RECORDS: no switch in the subnet
      r.errors.pop_back();
    } else {
      r.fabric_reason = "SA did not answer: " + why;
    }
  }
  if (pc != SIZE_MAX) {
    std::string why;
    if (auto c = take<std::map<std::string, uint64_t>>(b, pc, parse_port_counters, r.errors, &why)) r.counters = *c;
    std::string whyx;
    if (auto c = take<std::map<std::string, uint64_t>>(b, pcx, parse_port_counters_ext, r.errors, &whyx)) {
      for (auto& [k, v] : *c) r.counters[k] = v;   // 64-bit values win over the 32-bit ones
    } else {
      if (!r.errors.empty()) r.errors.pop_back();  // optional attribute: a reason, not an error
      r.counters_reason = "PortCountersExtended: " + whyx;
    }
    if (r.counters.empty()) r.counters_reason = why;
  }

  // Round 3: the all-node table when the subnet has no switch.
  const bool leaf_is_switch = neighbor && neighbor->node_type == kNodeSwitch;
  if (neighbor && !leaf_is_switch) r.uplinks_reason = "first-hop neighbour is a " + node_type_name(neighbor->node_type) + ", not a switch";
  if (!neighbor && link_up) r.uplinks_reason = "first-hop neighbour unknown";
  if (need_all_nodes) {
    Round c;
    size_t all = c.add(sa_node_records(r.sm_lid, 0));
    c.run(t, o.policy);
    std::string why;
    if (auto recs = take<std::vector<NodeRecord>>(c, all, parse_node_records, r.errors, &why)) {
      if (auto g = smallest_switch(*recs, false)) r.fabric = guid_string(*g);
      else r.fabric_reason = "SA returned no NodeRecords";
    } else {
      r.fabric_reason = "SA did not answer: " + why;
    }
  }

  // Rounds 3-4: the switches above the first-hop switch, once per leaf in this probe.
  if (leaf_is_switch) {
    auto walk = [&] { return walk_leaf(t, o.policy, port, *neighbor, r.errors); };
    LeafWalk w = o.walks ? o.walks->get(neighbor->node_guid, walk) : walk();
    r.uplinks = std::move(w.uplinks);
    if (r.uplinks.empty()) r.uplinks_reason = w.reason;
  }
  return r;
}

}  // namespace weft::ib
