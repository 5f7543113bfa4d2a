// Report-level fields (compute fabric, leaf, spine, rdma), the probe JSON and the labels.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "collectors/ib/prober.h"
#include "collectors/ib/report.h"
#include "common/keys.h"

namespace weft::ib {

std::string guid_string(uint64_t guid) { return fmt::format("0x{:016x}", guid); }

namespace {

// Ports grouped by the subnet they are on: the fabric id when known, else the subnet
// prefix and device (two unknown subnets must not merge).
std::string subnet_key(const PortReport& p) {
  if (!p.fabric.empty()) return p.fabric;
  return "unknown:" + p.subnet_prefix + ":" + p.device;
}

std::vector<const PortReport*> compute_ports(const IbReport& r, const std::vector<std::string>& devices,
                                             std::string& why) {
  std::vector<const PortReport*> out;
  if (!devices.empty()) {
    std::set<std::string> want(devices.begin(), devices.end());
    for (const auto& p : r.ports) {
      if (want.count(p.device)) out.push_back(&p);
    }
    why = "--compute-devices";
    return out;
  }
  // The fabric with the most active ports (IB before RoCE; ties: smallest key).
  std::map<std::string, int> active;
  for (const auto& p : r.ports) {
    if (p.infiniband()) active[subnet_key(p)] += p.active() ? 1 : 0;
  }
  std::string best;
  int best_n = -1;
  for (const auto& [k, n] : active) {
    if (n > best_n) best = k, best_n = n;
  }
  if (best_n >= 0) {
    for (const auto& p : r.ports) {
      if (p.infiniband() && subnet_key(p) == best) out.push_back(&p);
    }
    why = active.size() > 1 ? "the IB subnet with the most active ports" : "the only IB subnet";
    return out;
  }
  for (const auto& p : r.ports) out.push_back(&p);
  why = "no InfiniBand ports";
  return out;
}

}  // namespace

void summarize(IbReport& r, const std::vector<std::string>& devices) {
  std::string why;
  auto ports = compute_ports(r, devices, why);
  std::set<std::string> devs;
  bool any_ib = false, any_eth = false;
  for (const auto* p : ports) {
    devs.insert(p->device);
    any_ib |= p->infiniband();
    any_eth |= p->link_layer == "Ethernet";
  }
  r.compute_devices.assign(devs.begin(), devs.end());
  r.rdma = any_ib ? "ib" : any_eth ? "roce" : "none";
  if (r.rdma == "none") {
    std::string notes;
    for (const auto& n : r.backend_notes) notes += (notes.empty() ? "" : "; ") + n;
    if (r.rdma_reason.empty()) r.rdma_reason = ports.empty() && !devices.empty()
                                                   ? "no port on --compute-devices"
                                                   : "no RDMA ports found (" + notes + ")";
  } else {
    r.rdma_reason = fmt::format("compute fabric: {} ({} port(s))", why, ports.size());
  }

  // Fabric: the compute ports' id (they share one unless --compute-devices spans subnets).
  std::set<std::string> fabrics;
  std::string fabric_reason;
  for (const auto* p : ports) {
    if (!p->infiniband()) continue;
    if (!p->fabric.empty()) fabrics.insert(p->fabric);
    if (fabric_reason.empty() && !p->fabric_reason.empty()) fabric_reason = p->device + " port " + std::to_string(p->port) + ": " + p->fabric_reason;
  }
  if (!fabrics.empty()) {
    r.fabric = *fabrics.begin();
    r.fabric_reason = fabrics.size() > 1 ? fmt::format("compute ports span {} subnets; smallest id", fabrics.size())
                                         : fabric_reason;
  } else {
    r.fabric.clear();
    r.fabric_reason = any_ib ? (fabric_reason.empty() ? "no port learnt the subnet id" : fabric_reason)
                             : "no InfiniBand port";
  }

  // Leaf and spine over the active IB compute ports.
  std::string leaf, spine, leaf_reason, spine_reason;
  int active_ib = 0;
  for (const auto* p : ports) {
    if (!p->infiniband() || !p->active()) continue;
    ++active_ib;
    if (p->neighbor && p->neighbor->type == "switch") {
      if (leaf.empty() || p->neighbor->node_guid < leaf) leaf = p->neighbor->node_guid;
      for (const auto& u : p->uplinks) {
        if (spine.empty() || u < spine) spine = u;
      }
      if (p->uplinks.empty() && spine_reason.empty()) spine_reason = p->device + " port " + std::to_string(p->port) + ": " + p->uplinks_reason;
    } else if (leaf_reason.empty()) {
      leaf_reason = p->device + " port " + std::to_string(p->port) + ": " +
                    (p->neighbor ? "first-hop neighbour is a " + p->neighbor->type : p->neighbor_reason);
    }
  }
  if (active_ib == 0) leaf_reason = spine_reason = any_ib ? "no ACTIVE InfiniBand port" : "no InfiniBand port";
  r.leaf = leaf;
  r.leaf_reason = leaf.empty() ? (leaf_reason.empty() ? "no first-hop switch found" : leaf_reason) : "";
  r.spine = spine;
  r.spine_reason = spine.empty() ? (spine_reason.empty() ? (leaf.empty() ? "no leaf switch" : "no switch above the leaves") : spine_reason) : "";
}

namespace {

nlohmann::json or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

nlohmann::json port_json(const PortReport& p) {
  nlohmann::json j;
  j["device"] = p.device;
  j["port"] = p.port;
  j["state"] = p.state;
  j["phys_state"] = p.phys_state;
  j["link_layer"] = p.link_layer;
  j["lid"] = p.lid;
  j["port_guid"] = or_null(p.port_guid);
  j["node_guid"] = or_null(p.node_guid);
  j["rate_gbps"] = p.rate_gbps;
  j["width"] = p.width;
  j["speed"] = p.speed;
  j["subnet_prefix"] = or_null(p.subnet_prefix);
  if (p.sm) {
    j["sm"] = {{"lid", p.sm->lid}, {"guid", p.sm->guid}, {"priority", p.sm->priority}, {"state", p.sm->state}};
  } else {
    j["sm"] = nullptr;
    j["sm_reason"] = p.sm_reason;
  }
  if (p.neighbor) {
    j["neighbor"] = {{"node_guid", p.neighbor->node_guid}, {"type", p.neighbor->type},
                     {"port", p.neighbor->port}, {"description", p.neighbor->description}};
  } else {
    j["neighbor"] = nullptr;
    j["neighbor_reason"] = p.neighbor_reason;
  }
  j["uplinks"] = p.uplinks;
  if (p.uplinks.empty()) j["uplinks_reason"] = p.uplinks_reason;
  j["sm_lid"] = p.sm_lid;
  j["fabric"] = or_null(p.fabric);
  if (!p.fabric_reason.empty()) j["fabric_reason"] = p.fabric_reason;
  j["backend"] = p.backend;
  j["backend_reason"] = p.backend_reason;
  j["counters"] = p.counters;
  if (!p.counters_reason.empty()) j["counters_reason"] = p.counters_reason;
  j["errors"] = p.errors;
  return j;
}

nlohmann::json ib_json(const IbReport& r) {
  nlohmann::json j;
  j["fabric"] = r.fabric.empty() ? nlohmann::json("unknown") : nlohmann::json(r.fabric);
  if (!r.fabric_reason.empty()) j["fabric_reason"] = r.fabric_reason;
  j["leaf"] = or_null(r.leaf);
  if (!r.leaf_reason.empty()) j["leaf_reason"] = r.leaf_reason;
  j["spine"] = or_null(r.spine);
  if (!r.spine_reason.empty()) j["spine_reason"] = r.spine_reason;
  j["compute_devices"] = r.compute_devices;
  j["backend"] = r.backend;
  j["backend_notes"] = r.backend_notes;
  j["rdma_reason"] = r.rdma_reason;
  j["probe_seconds"] = r.probe_seconds;
  j["deadline_hit"] = r.deadline_hit;
  j["ports"] = nlohmann::json::array();
  for (const auto& p : r.ports) j["ports"].push_back(port_json(p));
  return j;
}

std::map<std::string, std::string> ib_labels(const IbReport& r) {
  std::map<std::string, std::string> l;
  l[keys::kRdma] = r.rdma;
  if (!r.fabric.empty()) l[keys::kFabric] = r.fabric;
  if (!r.leaf.empty()) l[keys::kLeaf] = r.leaf;
  if (!r.spine.empty()) l[keys::kSpine] = r.spine;
  double rate = 0;
  std::set<std::string> devs(r.compute_devices.begin(), r.compute_devices.end());
  for (const auto& p : r.ports) {
    if (p.infiniband() && p.active() && devs.count(p.device)) rate += p.rate_gbps;
  }
  if (r.rdma == "ib") l[keys::kRateGbps] = fmt::format("{}", rate);
  return l;
}

}  // namespace weft::ib
