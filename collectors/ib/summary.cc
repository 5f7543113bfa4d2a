// Report-level fields (compute fabric, rail group, spine, rails, rdma), the probe JSON and the labels.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "collectors/ib/prober.h"
#include "collectors/ib/report.h"
#include "common/keys.h"

namespace weft::ib {

std::string guid_string(uint64_t guid) { return fmt::format("0x{:016x}", guid); }

std::vector<std::string> device_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

namespace {

std::string where(const PortReport& p) { return p.device + " port " + std::to_string(p.port); }

void summarize_fabric(IbReport& r, const std::vector<const PortReport*>& ports, bool any_ib) {
  std::set<std::string> fabrics;
  std::string fabric_reason;
  for (const auto* p : ports) {
    if (!p->infiniband()) continue;
    if (!p->fabric.empty()) fabrics.insert(p->fabric);
    if (fabric_reason.empty() && !p->fabric_reason.empty()) fabric_reason = where(*p) + ": " + p->fabric_reason;
  }
  if (!fabrics.empty()) {
    r.fabric = *fabrics.begin();
    r.fabric_reason = fabrics.size() > 1 ? fmt::format("compute ports span {} subnets (planes); smallest id", fabrics.size())
                                         : fabric_reason;
  } else {
    r.fabric.clear();
    r.fabric_reason = any_ib ? (fabric_reason.empty() ? "no port learnt the subnet id" : fabric_reason)
                             : "no InfiniBand port";
  }
}

// The rail group and the spine above it: smallest over the IB compute ports, each with its
// leaf as seen now or, while it cannot see it, as last seen.
void summarize_rails(IbReport& r, const std::vector<const PortReport*>& ports, bool any_ib) {
  std::string leaf, spine, leaf_reason, spine_reason;
  r.rails = r.rails_active = 0;
  for (const auto* p : ports) {
    if (!p->infiniband()) continue;
    ++r.rails;
    r.rails_active += p->active();
    if (p->leaf.empty()) {
      if (leaf_reason.empty()) leaf_reason = where(*p) + ": " + p->leaf_reason;
      continue;
    }
    if (leaf.empty() || p->leaf < leaf) leaf = p->leaf;
    if (!p->spine.empty() && (spine.empty() || p->spine < spine)) spine = p->spine;
    if (p->spine.empty() && spine_reason.empty())
      spine_reason = where(*p) + ": " + (p->uplinks_reason.empty() ? "no switch above its leaf" : p->uplinks_reason);
  }
  if (!any_ib) leaf_reason = spine_reason = "no InfiniBand port";
  // A downed rail keeps its last known leaf so the node stays in its unit; with every compute
  // port down the node is off the fabric, and a leaf would draw gangs onto it.
  if (r.rails > 0 && r.rails_active == 0 && !leaf.empty()) {
    leaf_reason = spine_reason = "no compute port is ACTIVE (last known leaf " + leaf + ")";
    leaf.clear();
    spine.clear();
  }
  r.leaf = leaf;
  r.leaf_reason = leaf.empty() ? (leaf_reason.empty() ? "no first-hop switch found" : leaf_reason) : "";
  r.spine = spine;
  r.spine_reason = spine.empty() ? (spine_reason.empty() ? (leaf.empty() ? "no leaf switch" : "no switch above the leaves") : spine_reason) : "";
}

}  // namespace

void summarize(IbReport& r) {
  std::vector<const PortReport*> ports;
  for (const auto& p : r.ports)
    if (p.role == "compute") ports.push_back(&p);
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
    if (r.rdma_reason.empty()) r.rdma_reason = !r.ports.empty() ? "no compute port (" + r.ports.front().role_reason + ")"
                                                                 : "no RDMA ports found (" + notes + ")";
  } else {
    r.rdma_reason = fmt::format("compute: {} port(s); {}: {}", ports.size(), where(*ports.front()), ports.front()->role_reason);
  }
  summarize_fabric(r, ports, any_ib);
  summarize_rails(r, ports, any_ib);
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
  j["role"] = p.role;
  j["role_reason"] = p.role_reason;
  j["pci"] = or_null(p.pci);
  if (!p.pci_reason.empty()) j["pci_reason"] = p.pci_reason;
  j["gpus"] = p.gpus;
  j["leaf"] = or_null(p.leaf);
  j["spine"] = or_null(p.spine);
  if (!p.leaf_reason.empty()) j["leaf_reason"] = p.leaf_reason;
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
  j["rails"] = r.rails;
  j["rails_active"] = r.rails_active;
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
  if (r.rdma == "ib") {
    l[keys::kRateGbps] = fmt::format("{}", rate);
    l[keys::kRails] = std::to_string(r.rails);
    l[keys::kRailsActive] = std::to_string(r.rails_active);
  }
  return l;
}

}  // namespace weft::ib
