// The measured cases of bench/native_gang: one 4,096-pod gang of Kubernetes' own gang API
// on 10,000 GPU nodes in three tiers, and kube-scheduler's scheduler_perf CompositePodGroup
// workloads (CPGGangScheduling, CPGTopologyAwareScheduling) with their node, group and pod
// templates and sizes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace weft::bench {

// One scheduling.k8s.io PodGroup: its pods are `pods` (names), all-or-nothing when gang.
struct GroupSpec {
  std::string name;
  int min_count = 1;
  std::string topology_key;        // "" = anywhere
  std::vector<std::string> pods;
};

// A CompositePodGroup (or, with name "", a lone PodGroup): children placed together.
struct JobSpec {
  std::string name;
  int min_groups = 1;
  std::string topology_key;
  std::vector<GroupSpec> groups;
};

struct Case {
  std::string name;
  std::string label;                      // app=<label> on every pending pod
  std::string ns = "bench";               // the pending pods' namespace
  std::vector<nlohmann::json> nodes, running_pods;
  std::vector<nlohmann::json> group_objects;   // created before the pods, in this order
  std::vector<nlohmann::json> pods;            // pending, created last
  std::vector<JobSpec> jobs;
  std::string rank_label;                 // pods carry their rank here ("" = none)
  std::string leaf_label;                 // the lowest tier, for adjacent ranks across leaves
};

struct BigGangShape {
  int nodes = 10000;
  int nodes_per_leaf = 32;
  int leaves_per_spine = 16;
  int fabrics = 2;
  int busy_nodes = 2000;      // nodes whose 8 GPUs a running pod holds (in the first fabric)
  int gang = 4096;            // pods of 8 GPUs, one a node
};

Case big_gang(const BigGangShape& shape, const std::string& scheduler);
// The same job as a Volcano PodGroup split in sub-groups (subGroupPolicy, as a vcjob's
// partitionPolicy becomes): partitions of `partition` pods each in one leaf (hard tier 1),
// the job in one fabric (hard tier 3).
Case big_subgroups(const BigGangShape& shape, const std::string& scheduler, int partition);

// scheduler_perf's test/integration/scheduler_perf/cpg workloads by name, e.g.
// "CPGGangScheduling/5000Nodes_3CPGs_6Groups_9000Pods"; empty name when unknown.
Case scheduler_perf_case(const std::string& name, const std::string& scheduler);
std::vector<std::string> scheduler_perf_cases();

// A Ready node with kubernetes.io/hostname added to `labels`, `resources` its capacity and allocatable.
nlohmann::json ready_node(const std::string& name, nlohmann::json labels, const nlohmann::json& resources);

// The kube-lite --state file: the namespaces of every object, the nodes and the running pods.
void write_case_state(const Case& c, const std::string& path);

}  // namespace weft::bench
