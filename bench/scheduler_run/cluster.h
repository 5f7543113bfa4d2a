// The objects of bench/scheduler_run: GPU nodes in InfiniBand fabrics, pods already
// running on them, and pending single-pod jobs and gangs for weft-scheduler to bind.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace weft::bench {

struct ClusterShape {
  int nodes = 5000;
  std::string node_cpu = "192";
  std::string node_memory = "2Ti";
  int node_gpus = 8;
  int nodes_per_leaf = 32;
  int leaves_per_spine = 8;
  int fabrics = 4;
  int running_pods = 70000;     // already bound, so the caches hold nodes + these + the new pods
  std::string scheduler_name = "weft";
};

std::string node_name(int i);
nlohmann::json make_gpu_node(const ClusterShape& shape, int i, const std::string& load_at);
nlohmann::json make_running_pod(const ClusterShape& shape, int i);
// A pending pod asking for one GPU; `group` "" for a single-pod job.
nlohmann::json make_pending_pod(const ClusterShape& shape, const std::string& name, const std::string& group);
// A PodGroup of min_member with weft.dev/ib-cluster: same.
nlohmann::json make_gang(const std::string& name, int min_member);

// The --state file of kube-lite: a JSON List of the namespace, the nodes and the running pods,
// written item by item.
void write_state(const ClusterShape& shape, const std::string& path);

}  // namespace weft::bench
