// What the daemon knows about its machine at one moment: the IB view (from
// collectors/ib) and the load summary (from collectors/load), in the shapes of the
// probe JSON of docs/contracts.md. Adapters fill these from the collectors' own types.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace weft::agent {

struct IbPort {
  std::string device;          // "mlx5_0"
  int port = 0;
  std::string state;           // "ACTIVE", "DOWN", ...
  std::string link_layer;      // "InfiniBand" or "Ethernet"
  std::string port_guid;       // "0x" + 16 hex
  double rate_gbps = 0;
  // Cumulative port counters by short name ("xmit_data_bytes", "symbol_errors"...);
  // exported as weft_ib_port_<name>_total.
  std::map<std::string, uint64_t> counters;
  std::string role;            // "compute" | "storage"
  std::map<std::string, std::string> gpus;   // GPU PCI address -> PIX | PXB | PHB | SYS
  // The port as in the probe JSON (device, port, state, ..., uplinks) without the
  // values that move on every probe (counters, per-query errors); it is what the
  // weft.dev/ib-ports annotation carries, so the annotation changes only with the port.
  nlohmann::json json = nlohmann::json::object();

  bool active() const { return state == "ACTIVE" || state == "Active" || state == "4: ACTIVE"; }
  bool infiniband() const { return link_layer == "InfiniBand" || link_layer == "IB"; }
};

struct SmInfo {
  std::string guid;
  int lid = 0;
  std::string state;           // "MASTER", ...
};

struct IbSnapshot {
  std::string rdma = "none";   // ib | roce | none
  std::string fabric;          // "" when unknown
  std::string leaf;
  std::string spine;
  std::vector<IbPort> ports;
  std::optional<SmInfo> sm;
  int rails = 0;               // IB compute ports
  int rails_active = 0;        // ... of them ACTIVE
  // The weft.dev/ labels this probe sets (rdma, ib-fabric, ib-leaf, ib-spine,
  // ib-rate-gbps), as the IB collector computes them; unknown values are absent.
  std::map<std::string, std::string> labels;
  double probe_seconds = 0;    // how long the probe took
  nlohmann::json json = nlohmann::json::object();  // the probe JSON "ib" object
  // NVML's NVLink domain ("<cluster UUID>.<clique id>", "" for none); unset while NVML does
  // not answer, and then GPU feature discovery's nvidia.com/gpu.clique label decides.
  std::optional<std::string> nvlink_domain;
};

// Histogram of run-queue latency since the sampler started, Prometheus-style:
// cumulative counts per upper bound (seconds), plus sum and count.
struct LatencyHistogram {
  std::vector<double> upper_bounds;
  std::vector<uint64_t> cumulative_counts;   // same length as upper_bounds
  uint64_t count = 0;
  double sum_seconds = 0;
};

// One pod's usage on this node (collectors/load), named by the API (pod_directory.h).
struct PodLoad {
  std::string ns;                // "" until named
  std::string name;
  std::string uid;               // how its cgroup names it: kubelet's metadata.uid ...
  std::string runtime_name;      // ... or weft-node-runtime's "<namespace>-<name>"
  double cpu_cores = 0;          // averaged over the load window
  std::optional<double> memory_bytes;  // working set; unset without a memory controller
};

struct LoadSnapshot {
  std::string source;          // "ebpf" or "procfs"
  double cpu = 0;              // busy ratio 0..1 over the window
  std::vector<double> cpus;    // per CPU
  double memory = 0;           // used ratio 0..1
  double window_seconds = 0;
  std::optional<double> runq_latency_p99_s;
  double reclaim_stall_seconds_total = 0;
  std::optional<LatencyHistogram> runq_histogram;
  std::vector<PodLoad> pods;   // named pods only, once the daemon has named them
  nlohmann::json json = nlohmann::json::object();  // the probe JSON "load" object
};

}  // namespace weft::agent
