// collectors/load — how busy this node is, measured on the node: CPU (node, per CPU,
// per cgroup), memory, run-queue latency and reclaim stalls; and each pod's CPU and
// memory, from its cgroup.
//
// Entry points (everything a caller outside this folder needs is in this header):
//   auto j = probe_load(options);                 // one window: the probe JSON "load" object
//   auto m = start_load_monitor(options, &why);   // a reading every period, on a thread of its own
//   std::optional<LoadSummary> s = (*m)->summary();  // the last window, from any thread
// Backends: ebpf/ (the programs of ebpf/load.bpf.c) and procfs/ (/proc/stat, meminfo,
// PSI, cgroup cpu.stat); "auto" takes eBPF and falls back to procfs, saying why. pods/
// finds pods' groups by kubelet's naming and reads their working set.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectors/load/histogram.h"
#include "collectors/load/text_files.h"
#include "collectors/load/window.h"
#include "common/result.h"

namespace weft::load {

struct LoadProbeOptions {
  std::string backend = "auto";  // --load-backend
  double sample_seconds = 1.0;   // --sample-seconds
  std::string cgroup;            // --cgroup PATH, "" for none
};

// Picks the backend, samples over sample_seconds, returns window_json() of that window.
Result<nlohmann::json> probe_load(const LoadProbeOptions& options);

// {"source","source_reason","window_s","cpu","cpus":[..],"memory","runq_latency_p50_s",
//  "runq_latency_p99_s","reclaim_stall_s","cpu_pressure_some","cpu_sample_hz","runq_observed_share",
//  "cgroup":{"path","busy_ratio"}}
// Unknown values (e.g. run-queue quantiles from procfs) are null; cpu_sample_hz is null
// when busy ratios are exact, runq_observed_share < 1 when the waits are a sample.
nlohmann::json window_json(const LoadWindow& w, const std::string& source, const std::string& reason,
                           const std::string& cgroup);

struct SamplerOptions {
  std::chrono::milliseconds period{1000};
  std::chrono::milliseconds window{60000};
};

// A pod's cgroup v2 group and who it is by its name (pods/pod_cgroups.h).
struct PodCgroup {
  std::string dir;
  std::string uid;           // kubelet's groups: metadata.uid
  std::string runtime_name;  // weft-node-runtime's "pod-<namespace>-<name>": "<namespace>-<name>"
};

struct PodUsage {
  PodCgroup cgroup;
  double cpu_cores = 0;               // CPU time over the pod's part of the window / its length
  double window_s = 0;                // that part: from the first reading that had the pod
  std::optional<double> memory_bytes;  // working set averaged over those readings; unset
                                       // without a memory controller on the group
};

struct LoadSummary {
  std::string source;         // "ebpf" or "procfs"
  std::string source_reason;
  LoadWindow window;          // CPU, cgroups, runq quantiles, reclaim over the last window
  double memory_avg = 0;      // memory used ratio averaged over the window's readings
  std::vector<uint64_t> runq_buckets_total;           // since start, log2(ns) buckets; empty for procfs
  std::optional<double> runq_sum_seconds_total;       // since start, exact sum of those waits
  std::optional<double> reclaim_stall_seconds_total;  // since start
  std::chrono::system_clock::time_point at;
  std::vector<PodUsage> pods;  // when pods are tracked: those with two readings in the window
};

class LoadMonitor {
 public:
  virtual ~LoadMonitor() = default;
  // nullopt until two readings exist.
  virtual std::optional<LoadSummary> summary() const = 0;
  // The last read error, "" when the last read worked.
  virtual std::string last_error() const = 0;
};

struct MonitorOptions {
  std::string backend = "auto";  // auto | ebpf | procfs
  SamplerOptions sampling;
  // Each pod's usage in the summaries: the groups under pod_roots, or kubelet's places
  // under the cgroup2 mount (kubepods.slice, kubepods) when it is empty.
  bool pods = false;
  std::vector<std::string> pod_roots;
};

// Chooses the backend (why: which and why) and takes the first reading; errors when
// the backend cannot be had or its first reading fails.
Result<std::unique_ptr<LoadMonitor>> start_load_monitor(const MonitorOptions& options, std::string* why);

// For callers measuring one cgroup v2 group of their own (the demo's simulated nodes).
// The cgroup2 mount point, from /proc/self/mounts.
Result<std::string> cgroup2_mount(const TextFiles& files);
// PATH as given to --cgroup: a directory under the mount ("/sys/fs/cgroup/unified/x")
// or a path inside the hierarchy ("/kubepods.slice/x", "x"). Returns the directory,
// checked to exist and to hold cpu.stat.
Result<std::string> resolve_cgroup_dir(const TextFiles& files, const std::string& mount, const std::string& path);
// The group's cumulative CPU time (cpu.stat usage_usec) in ns; dir is its directory.
Result<uint64_t> cgroup_cpu_usage_ns(const TextFiles& files, const std::string& dir);
// MemTotal and MemAvailable of PROC/meminfo.
Result<MemoryInfo> read_meminfo(const TextFiles& files, const std::string& proc = "/proc");

}  // namespace weft::load
