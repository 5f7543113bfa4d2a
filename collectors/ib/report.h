// collectors/ib — where this node sits in its InfiniBand fabric, found from the node.
//
// Entry points (everything a caller needs is in this header):
//   IbProber prober(options);            // keeps the last known fabric id between probes
//   IbReport r = prober.probe();         // ports, SM, first-hop switch, uplinks, fabric, counters
//   nlohmann::json ib = ib_json(r);      // the probe JSON "ib" object (docs/contracts.md)
//   auto labels = ib_labels(r);          // weft.dev/rdma, ib-fabric, ib-leaf, ib-spine, ib-rate-gbps, ib-rails...
//   prober.recall(memory_from_ports_json(annotation));   // at start: last known places of the ports
//   std::string rdma = r.rdma;           // "ib" | "roce" | "none"
// A probe never throws and never hangs: every MAD has a timeout and bounded retries, the
// whole probe a deadline; a port whose queries fail carries an `error` string, the rest of
// the report stands. Unknown values are empty strings with a `*_reason` beside them.
// GUIDs are "0x" + 16 lowercase hex digits everywhere.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace weft::ib {

struct SmReport {
  uint16_t lid = 0;
  std::string guid;            // "0x..."
  int priority = 0;
  std::string state;           // "MASTER" | "STANDBY" | "DISCOVERING" | "NOT_ACTIVE"
};

struct NeighborReport {
  std::string node_guid;       // "0x..."
  std::string type;            // "switch" | "ca" | "router"
  int port = 0;                // the neighbour's port facing us
  std::string description;     // NodeDescription
};

struct PortReport {
  std::string device;          // "mlx5_0"
  int port = 0;
  std::string backend;         // "umad" | "verbs"
  std::string backend_reason;  // why this backend was used for this port
  std::string state;           // "DOWN" | "INIT" | "ARMED" | "ACTIVE" | "ACTIVE_DEFER"
  std::string phys_state;      // "LINKUP" | "POLLING" | "DISABLED" | ...
  std::string link_layer;      // "InfiniBand" | "Ethernet"
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
  std::string port_guid;
  std::string node_guid;
  std::string subnet_prefix;   // "0xfe80000000000000"
  double rate_gbps = 0;        // data rate of the link (width x lane speed)
  std::string width;           // "4x"
  std::string speed;           // "SDR" | "DDR" | "QDR" | "FDR" | "EDR" | "HDR" | "NDR" | "25GbE"...
  std::optional<SmReport> sm;
  std::string sm_reason;       // why sm is missing
  std::optional<NeighborReport> neighbor;
  std::string neighbor_reason;
  std::vector<std::string> uplinks;  // switches one hop above the first-hop switch, sorted
  std::string uplinks_reason;
  std::string fabric;          // subnet id as seen from this port ("" when unknown)
  std::string fabric_reason;   // why unknown, or "last known: <why the SA did not answer>"
  // Cumulative PerfMgt counters by short name: xmit_data_bytes, rcv_data_bytes,
  // xmit_packets, rcv_packets, symbol_errors, link_error_recovery, link_downed,
  // rcv_errors, xmit_discards, xmit_wait, ...
  std::map<std::string, uint64_t> counters;
  std::string counters_reason;
  std::vector<std::string> errors;   // what failed on this port (query: reason)
  // The port's part in the node's place (roles.cc, rails.cc).
  std::string role;            // "compute" | "storage"
  std::string role_reason;
  std::string pci;             // the device's PCI address ("" when sysfs does not say)
  std::string pci_reason;
  std::map<std::string, std::string> gpus;   // GPU PCI address -> "PIX" | "PXB" | "PHB" | "SYS"
  std::string leaf;            // first-hop switch GUID; while the port cannot see it, the last known one
  std::string spine;           // smallest switch GUID above that leaf (fresh or last known)
  std::string leaf_reason;     // "" when fresh, else "last known; now: ..." or why unknown

  bool active() const { return state == "ACTIVE"; }
  bool infiniband() const { return link_layer == "InfiniBand"; }
};

struct IbReport {
  std::string rdma = "none";   // ib | roce | none
  std::string rdma_reason;     // e.g. "no RDMA devices (umad: ..., verbs: ...)"
  std::string backend;         // requested backend: auto | umad | verbs
  std::vector<std::string> backend_notes;  // why each backend was or was not used
  // The compute fabric (see ProbeOptions::compute_devices) and this node's place in it.
  std::string fabric;          // "" when unknown
  std::string fabric_reason;
  // The rail group: the smallest leaf over the IB compute ports, a port that is down
  // counting with its last known leaf, so a downed rail does not move the node.
  std::string leaf;
  std::string leaf_reason;
  std::string spine;           // smallest GUID among the switches one hop above those leaves
  std::string spine_reason;
  std::vector<std::string> compute_devices;  // devices whose ports make up the compute fabric
  int rails = 0;               // IB compute ports (planes count together)
  int rails_active = 0;        // ... of them ACTIVE
  std::vector<PortReport> ports;
  double probe_seconds = 0;
  bool deadline_hit = false;
};

struct ProbeOptions {
  std::string backend = "auto";              // auto | umad | verbs
  std::vector<std::string> compute_devices;  // --compute-devices; empty: the fabric with most active ports
  std::chrono::milliseconds mad_timeout{250};  // per MAD attempt
  int mad_retries = 2;                         // extra attempts after the first
  std::chrono::milliseconds deadline{5000};    // whole probe
  bool counters = true;                        // query PerfMgt counters
  std::string sysfs_root = "/sys";             // where the PCIe tree is read (GPU distances, roles)
};

// The last known place of each port ("device/port"), kept across probes and recovered at
// start from the node's own weft.dev/ib-ports annotation.
struct PortMemo {
  std::string fabric;
  std::string leaf;
  std::string spine;
};
using PortMemory = std::map<std::string, PortMemo>;
// From the annotation's port objects ("device", "port", "fabric", "leaf", "spine"); objects
// that do not carry them are skipped.
PortMemory memory_from_ports_json(const nlohmann::json& ports);

// A probe session: remembers the last fabric id, leaf and spine seen on each port so that
// while no SM answers, or the port is down, the report keeps them (with the reason). One per
// daemon; cheap to construct.
class IbProber {
 public:
  explicit IbProber(ProbeOptions options);
  ~IbProber();
  IbProber(const IbProber&) = delete;
  IbProber& operator=(const IbProber&) = delete;

  IbReport probe();
  // Adds what this prober has not learnt itself (a restarted agent's last published places).
  void recall(const PortMemory& memory);
  const ProbeOptions& options() const { return options_; }

 private:
  ProbeOptions options_;
  PortMemory memory_;
};

// The probe JSON "ib" object (docs/contracts.md): {"fabric","leaf","spine","ports":[...], ...reasons}.
nlohmann::json ib_json(const IbReport& report);
// One port as in the "ports" array (and the weft.dev/ib-ports annotation).
nlohmann::json port_json(const PortReport& port);
// The weft.dev/ labels this report sets. Unknown values are left out (the agent removes
// its stale keys), so a missing key means "not known now".
std::map<std::string, std::string> ib_labels(const IbReport& report);

// "mlx5_0,mlx5_1" (--compute-devices) -> {"mlx5_0", "mlx5_1"}; empty items dropped.
std::vector<std::string> device_list(const std::string& comma_separated);

// Formats a GUID as "0x" + 16 lowercase hex digits.
std::string guid_string(uint64_t guid);

}  // namespace weft::ib
