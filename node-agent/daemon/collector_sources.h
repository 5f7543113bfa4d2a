// The real IB and load sources for --ib-backend / --load-backend (collectors/ib and
// collectors/load behind the daemon's interfaces).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

struct IbSourceOptions {
  std::string backend = "auto";       // auto|umad|verbs
  std::vector<std::string> compute_devices;   // empty: the collector's rule
  std::string sysfs_root = "/sys";
  std::string nvml_library;           // "": the NVLink domain from GPU feature discovery's label only
};
// `why` says which backend was chosen and why.
Result<std::unique_ptr<IbSource>> make_ib_source(const IbSourceOptions& options, std::string* why);
// auto|ebpf|procfs; sampling starts at once (a reading every `period`), summaries span
// up to `window`. With pods, each pod's usage too: the pods' groups under pod_roots
// (empty: kubelet's places under the cgroup2 mount).
struct LoadSourceOptions {
  std::string backend = "auto";
  std::chrono::milliseconds period{1000};
  std::chrono::milliseconds window{60000};
  bool pods = false;
  std::vector<std::string> pod_roots;
  double pod_cpu_scale = 1;   // --load-cgroup only: the Node's advertised cores per measured core
};
Result<std::unique_ptr<LoadSource>> make_load_source(const LoadSourceOptions& options, std::string* why);
// --load-cgroup: the node's load from its cgroup (cgroup_load_source.h) and, with
// options.pods, its pods' usage by the procfs backend (cpu.stat) under pod_roots, their
// cores scaled by options.pod_cpu_scale.
Result<std::unique_ptr<LoadSource>> make_cgroup_node_source(const std::string& cgroup, double cpus,
                                                            const LoadSourceOptions& options, std::string* why);

}  // namespace weft::agent
