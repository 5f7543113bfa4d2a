#include "node-agent/daemon/ib_adapter.h"

#include <infiniband/umad.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace weft::agent {

namespace {

constexpr const char* kAnnotationFields[] = {"device",   "port",          "state", "phys_state", "link_layer",
                                             "lid",      "port_guid",     "node_guid", "rate_gbps", "width",
                                             "speed",    "subnet_prefix", "sm",    "neighbor",   "uplinks",
                                             "fabric",   "leaf",          "spine", "role",      "pci",
                                             "gpus"};

// libibumad's numeric port states (IB spec PortInfo:PortState).
std::string umad_state_name(unsigned state) {
  switch (state) {
    case 1: return "DOWN";
    case 2: return "INIT";
    case 3: return "ARMED";
    case 4: return "ACTIVE";
    case 5: return "ACTIVE_DEFER";
    default: return fmt::format("STATE{}", state);
  }
}

}  // namespace

nlohmann::json annotation_port(const nlohmann::json& port_json) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* key : kAnnotationFields) {
    auto it = port_json.find(key);
    if (it != port_json.end()) out[key] = *it;
  }
  return out;
}

Result<IbSnapshot> snapshot_from_report(const weft::ib::IbReport& r) {
  bool any_state = false;
  std::string errors;
  for (const auto& p : r.ports) {
    if (!p.state.empty()) any_state = true;
    for (const auto& e : p.errors) errors += fmt::format("{}{}/{}: {}", errors.empty() ? "" : "; ", p.device, p.port, e);
  }
  if (!r.ports.empty() && !any_state)
    return make_error(fmt::format("ib probe: no port answered its PortInfo query ({})", errors));

  IbSnapshot s;
  s.rdma = r.rdma;
  s.fabric = r.fabric;
  s.leaf = r.leaf;
  s.spine = r.spine;
  s.labels = weft::ib::ib_labels(r);
  s.rails = r.rails;
  s.rails_active = r.rails_active;
  s.probe_seconds = r.probe_seconds;
  s.json = weft::ib::ib_json(r);
  for (const auto& p : r.ports) {
    IbPort port;
    port.device = p.device;
    port.port = p.port;
    port.state = p.state;
    port.link_layer = p.link_layer;
    port.port_guid = p.port_guid;
    port.rate_gbps = p.rate_gbps;
    port.counters = p.counters;
    port.role = p.role;
    port.gpus = p.gpus;
    port.json = annotation_port(weft::ib::port_json(p));
    // The master SM as the first active port that knows it sees it.
    if (!s.sm && p.sm && p.active()) s.sm = SmInfo{p.sm->guid, p.sm->lid, p.sm->state};
    s.ports.push_back(std::move(port));
  }
  return s;
}

void add_nvlink(const weft::nvlink::NvlinkReading& r, IbSnapshot& s) {
  if (r.answered) s.nvlink_domain = r.domain;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : r.gpus) {
    nlohmann::json j = {{"index", g.index}, {"state", g.state}};
    if (!g.cluster_uuid.empty()) j["cluster_uuid"] = g.cluster_uuid, j["clique_id"] = g.clique_id;
    if (!g.error.empty()) j["error"] = g.error;
    gpus.push_back(j);
  }
  s.json["nvlink"] = {{"source", r.answered ? "nvml" : "nvidia.com/gpu.clique"},
                      {"domain", r.domain.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.domain)},
                      {"reason", r.reason}, {"gpus", gpus}};
}

Result<IbSnapshot> CollectorIbSource::probe() {
  auto s = snapshot_from_report(prober_.probe());
  if (!s || !nvlink_) return s;
  const auto reading = nvlink_->read();
  add_nvlink(reading, *s);
  const std::string said = reading.answered ? "domain " + (reading.domain.empty() ? "none: " + reading.reason : reading.domain)
                                            : reading.reason;
  if (said != nvlink_said_) {
    nvlink_said_ = said;
    if (!reading.answered) spdlog::info("nvlink: {}; the NVLink domain comes from nvidia.com/gpu.clique", said);
    else if (reading.domain.empty() && !reading.reason.empty()) spdlog::warn("nvlink: NVML: {}", said);
    else spdlog::info("nvlink: NVML: {}", said);
  }
  return s;
}

void CollectorIbSource::recall(const nlohmann::json& annotation_ports) {
  prober_.recall(weft::ib::memory_from_ports_json(annotation_ports));
}

Result<std::string> CollectorIbSource::port_states() {
  char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  const int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
  if (n < 0) return std::string();   // no umad devices: nothing to watch
  std::string out;
  for (int i = 0; i < n; ++i) {
    umad_ca_t ca{};
    if (umad_get_ca(names[i], &ca) < 0) continue;
    for (int p = 0; p <= ca.numports && p < UMAD_CA_MAX_PORTS; ++p) {
      if (!ca.ports[p]) continue;
      out += fmt::format("{}{}/{}={}", out.empty() ? "" : " ", names[i], ca.ports[p]->portnum,
                         umad_state_name(ca.ports[p]->state));
    }
    umad_release_ca(&ca);
  }
  return out;
}

}  // namespace weft::agent
