#include "collectors/ib/prober.h"

#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "collectors/ib/port_probe.h"

#ifdef WEFT_HAVE_UMAD
#include "collectors/ib/umad_transport.h"
#endif
#ifdef WEFT_HAVE_VERBS
#include "collectors/ib/verbs_ports.h"
#endif

namespace weft::ib {

namespace {

std::string key(const PortReport& p) { return p.device + "/" + std::to_string(p.port); }

PortReport unopened(const LocalPort& lp, const std::string& why) {
  PortReport r;
  r.device = lp.device;
  r.port = lp.port;
  r.backend = "umad";
  r.link_layer = lp.link_layer;
  r.errors.push_back(why);
  r.neighbor_reason = r.uplinks_reason = r.sm_reason = r.fabric_reason = r.counters_reason = why;
  return r;
}

// Every IB port at once, each opened and probed in its own thread on its own transport: a
// probe is a few rounds of round trips, so a node of 8 rails and 2 storage HCAs waits for
// about one port's rounds instead of ten times that.
std::vector<PortReport> umad_reports(const ProbeOptions& o, UmadDevices& umad, const std::vector<LocalPort>& ports,
                                     Clock::time_point deadline, bool& deadline_hit) {
  PortProbeOptions po;
  po.policy.timeout = o.mad_timeout;
  po.policy.retries = o.mad_retries;
  po.policy.deadline = deadline;
  po.counters = o.counters;
  LeafWalks walks;
  po.walks = &walks;
  std::vector<LocalPort> ib_ports;
  for (const auto& lp : ports)
    if (lp.link_layer == "InfiniBand") ib_ports.push_back(lp);
  if (!ib_ports.empty() && Clock::now() >= deadline) deadline_hit = true;
  std::vector<PortReport> out(ib_ports.size());
  auto probe = [&](size_t i) {
    auto t = umad.open(ib_ports[i].device, ib_ports[i].port);
    out[i] = t ? probe_umad_port(ib_ports[i], **t, po) : unopened(ib_ports[i], t.message());
  };
  std::vector<std::thread> threads;
  for (size_t i = 0; i + 1 < ib_ports.size(); ++i) threads.emplace_back(probe, i);
  if (!ib_ports.empty()) probe(ib_ports.size() - 1);   // the last one on this thread
  for (auto& t : threads) t.join();
  return out;
}

// auto: verbs adds what umad cannot see (RoCE ports, devices without umad); the empty
// string says it is needed, else why not.
std::string verbs_not_needed(const Backends& b, const std::optional<std::vector<LocalPort>>& umad_listed) {
  if (!umad_listed || !b.verbs_devices) return "";
  std::set<std::string> infiniband_devices;
  for (const auto& lp : *umad_listed) {
    if (lp.link_layer != "InfiniBand") return "";
    infiniband_devices.insert(lp.device);
  }
  const auto names = b.verbs_devices();
  if (names.empty()) return "not needed: no verbs device";
  for (const auto& name : names) {
    if (!infiniband_devices.count(name)) return "";
  }
  return "not needed: every verbs device is InfiniBand and umad probed it";
}

}  // namespace

IbReport run_probe(const ProbeOptions& o, Backends& b, PortMemory& memory) {
  const auto start = Clock::now();
  const auto deadline = start + o.deadline;
  IbReport report;
  report.backend = o.backend;
  const bool want_umad = o.backend == "auto" || o.backend == "umad";
  const bool want_verbs = o.backend == "auto" || o.backend == "verbs";
  if (!want_umad && !want_verbs) {
    report.rdma_reason = "unknown --ib-backend '" + o.backend + "' (auto|umad|verbs)";
    report.backend_notes.push_back(report.rdma_reason);
    return report;
  }

  std::set<std::string> umad_seen;  // device/port probed by umad
  std::optional<std::vector<LocalPort>> umad_listed;   // what umad listed, when it could
  if (want_umad) {
    if (!b.umad) {
      report.backend_notes.push_back("umad: " + b.umad_missing);
    } else if (auto ports = b.umad->ports(); !ports) {
      report.backend_notes.push_back("umad: " + ports.message());
    } else {
      bool hit = false;
      umad_listed = *ports;
      auto reports = umad_reports(o, *b.umad, *ports, deadline, hit);
      report.deadline_hit |= hit;
      for (auto& r : reports) {
        r.backend_reason = o.backend == "umad" ? "--ib-backend umad" : "InfiniBand port: umad sends SMPs, SA and PerfMgt queries";
        umad_seen.insert(key(r));
        report.ports.push_back(std::move(r));
      }
      size_t eth = 0;
      for (const auto& lp : *ports) eth += lp.link_layer != "InfiniBand";
      report.backend_notes.push_back(fmt::format("umad: {} InfiniBand port(s){}", reports.size(),
                                                 eth ? fmt::format(", {} Ethernet port(s) left to verbs", eth) : ""));
    }
  }
  const std::string skip_verbs = o.backend == "auto" ? verbs_not_needed(b, umad_listed) : "";
  if (!skip_verbs.empty()) {
    report.backend_notes.push_back("verbs: " + skip_verbs);
  } else if (want_verbs) {
    if (!b.verbs) {
      report.backend_notes.push_back("verbs: " + b.verbs_missing);
    } else if (auto ports = b.verbs(); !ports) {
      report.backend_notes.push_back("verbs: " + ports.message());
    } else {
      size_t used = 0;
      for (auto& r : *ports) {
        if (umad_seen.count(key(r))) continue;   // auto: umad already knows this IB port better
        r.backend_reason = o.backend == "verbs" ? "--ib-backend verbs"
                           : r.link_layer == "Ethernet" ? "RoCE port: only verbs sees it"
                                                        : "InfiniBand port umad could not see";
        report.ports.push_back(std::move(r));
        ++used;
      }
      report.backend_notes.push_back(fmt::format("verbs: {} port(s) used", used));
    }
  }
  for (auto& p : report.ports) remember_place(p, memory);
  place_on_pcie(report, o.sysfs_root);
  assign_roles(report, o.compute_devices);
  summarize(report);
  if (Clock::now() >= deadline) report.deadline_hit = true;
  report.probe_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

IbProber::IbProber(ProbeOptions options) : options_(std::move(options)) {}
IbProber::~IbProber() = default;

IbReport IbProber::probe() {
  Backends b;
#ifdef WEFT_HAVE_UMAD
  auto umad = make_umad_devices();
  b.umad = umad.get();
#else
  b.umad_missing = "not built (libibumad-dev/libibmad-dev missing at build time)";
#endif
#ifdef WEFT_HAVE_VERBS
  b.verbs = verbs_ports;
  b.verbs_devices = verbs_device_names;
#else
  b.verbs_missing = "not built (libibverbs-dev missing at build time)";
#endif
  return run_probe(options_, b, memory_);
}

void IbProber::recall(const PortMemory& memory) {
  for (const auto& [key, memo] : memory) memory_.emplace(key, memo);   // what it learnt itself wins
}

}  // namespace weft::ib
