// `weft-agent run`: the DaemonSet daemon (node-agent/daemon/).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace weft::agent {

struct RunOptions {
  std::string node_name;            // --node-name, else $NODE_NAME (downward API)
  std::string listen = "0.0.0.0:9464";
  std::string kubeconfig;
  bool no_publish = false;
  std::string ib_backend = "auto";
  std::string compute_devices;      // --compute-devices: comma-separated
  std::string sysfs_root = "/sys";  // --sysfs-root
  std::string nvml_library = "libnvidia-ml.so.1";  // --nvml-library; "" or "none": do not read NVML
  std::string load_backend = "auto";
  std::string load_cgroup;          // --load-cgroup: this cgroup's CPU time is the node's load
  double load_cgroup_cpus = 1;      // --load-cgroup-cpus: that node's CPU capacity in cores
  double load_cgroup_node_cpus = 0; // --load-cgroup-node-cpus: the cores its Node advertises (0: the same)
  std::vector<std::string> pod_cgroup_roots;  // --pod-cgroup-root: where pods' groups are
  bool no_pod_metrics = false;      // --no-pod-metrics
  std::string ib_interval = "30s";
  std::string load_interval = "5s";
  std::string heartbeat = "60s";
  double load_threshold = 0.05;     // rewrite the load annotation when cpu/memory moved more
  std::string log_level = "info";
};

// Adds the `run` subcommand and its flags to the dispatcher.
CLI::App* add_run_command(CLI::App& app, RunOptions& options);
// Runs until SIGTERM/SIGINT; returns the process exit code.
int run_daemon(const RunOptions& options);

}  // namespace weft::agent
