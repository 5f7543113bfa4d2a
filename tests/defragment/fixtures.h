// Scenario pieces for the GangDefragment tests: GPU nodes as the agents label them, pods,
// PodGroups and budgets as the API holds them, and the step between the descheduler and
// the scheduler (victims re-created pending, the reservation on the PodGroup).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "descheduler/core/defragment/defragment.h"
#include "kube/scenario.h"

namespace weft::defrag_test {

using nlohmann::json;

// 192 cpu, 2 TiB, `gpus` nvidia.com/gpu, 110 pods; labels fabric/spine/leaf, rdma=ib.
json gpu_node(const std::string& name, const std::string& fabric, const std::string& spine, const std::string& leaf,
              int gpus = 8);

struct PodSpec {
  std::string ns = "batch", name, node;   // node "" = pending
  int gpus = 1;
  int cpu = 4;
  int priority = 0;
  std::string owner_kind = "ReplicaSet", owner_name = "filler";
  std::string group;                       // PodGroup name in ns
  std::map<std::string, std::string> labels;
  bool rdma = false;                       // requests rdma/hca: 1 (keeps it in its IB fabric)
  std::map<std::string, std::string> node_selector;
};
json pod(const PodSpec& p);

struct GroupSpec {
  std::string ns = "ml", name;
  int min_member = 1;
  bool same_ib_cluster = false;
  int hard_tier = 0;                       // 0: no networkTopology
  std::string queue;
};
json podgroup(const GroupSpec& g);

// A PodDisruptionBudget over pods labelled app=<app>, allowing `allowed` disruptions.
json pdb(const std::string& ns, const std::string& name, const std::string& app, int allowed);

// Fabric a: spine a-s1 over leaves a-l1 and a-l2, four 8-GPU nodes each. Each a-l1 node
// holds one 2-GPU filler, each a-l2 node two (so a-l1 is the cheaper leaf to clear).
// Fabric b: four 8-GPU nodes with a 1-GPU DaemonSet pod each, room for the victims but not
// for an 8-GPU pod.
std::vector<json> fragmented_fabric();

// A pending gang ml/<name>: `pods` pods of `gpus` GPUs (RDMA), minMember = pods, hard tier
// `tier` (0: none), optionally weft.dev/ib-cluster: same.
void add_gang(std::vector<json>& o, const std::string& name, int pods, int gpus, int tier, int priority = 1000,
              bool same_ib = false);

std::vector<kube::SourcedObject> sourced(const std::vector<json>& objects);

// What the cluster looks like once the plan was carried out: each evicted pod is a
// pending copy (no nodeName, no status), each gang's PodGroup carries its reservation.
std::vector<json> after_evictions(const std::vector<json>& objects, const descheduler::defragment::Outcome& outcome);

// Node each pod ends on after `weft-scheduler simulate` (Volcano defaults) over `objects`;
// "" for a pod left pending.
std::map<std::string, std::string> simulate_placements(const std::vector<json>& objects,
                                                       kube::TimePoint now);

descheduler::defragment::World world(const std::vector<json>& objects, kube::TimePoint now);

kube::TimePoint test_now();

}  // namespace weft::defrag_test
