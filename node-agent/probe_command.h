// `weft-agent probe`: probe IB and load once, print the probe JSON of docs/contracts.md (or text), exit 0.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace weft::agent {

struct ProbeOptions {
  std::string output = "json";       // json | text
  std::string ib_backend = "auto";   // auto | umad | verbs
  std::string load_backend = "auto"; // auto | ebpf | procfs
  double sample_seconds = 1.0;       // 0 skips the load window
  std::string cgroup;
  std::string compute_devices;       // comma-separated device names
  std::string sysfs_root = "/sys";   // where the PCIe tree is read
  std::string node_name;             // default $NODE_NAME, else the host name
  int mad_timeout_ms = 250;
  int mad_retries = 2;
  double deadline_seconds = 5.0;     // IB part
};

CLI::App* add_probe_command(CLI::App& app, ProbeOptions& options);
// Returns the process exit code (0 unless the flags are bad).
int run_probe(const ProbeOptions& options);

}  // namespace weft::agent
