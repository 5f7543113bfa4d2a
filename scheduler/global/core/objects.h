// The control plane as `weft-scheduler global` sees it: Karmada Clusters and
// ResourceBindings, Volcano Queues, the workloads the bindings point to, PriorityClasses,
// and each member's Nodes/Pods/HyperNodes (annotation weft.dev/member-cluster: NAME).
// Objects in (nlohmann::json as the API returns them), a GlobalState out; no I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/quantity.h"
#include "kube/selector.h"
#include "kube/taints.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler::global {

inline constexpr const char* kMemberAnnotation = "weft.dev/member-cluster";
inline constexpr const char* kQueueNameAnnotation = "scheduling.volcano.sh/queue-name";

// cluster.karmada.io/v1alpha1 Cluster.
struct MemberCluster {
  std::string name;
  bool ready = false;               // status.conditions[type=Ready].status == "True"
  std::string not_ready;            // why not, for reasons
  kube::Labels labels;
  std::map<std::string, std::string> fields;   // provider, region, zone (for fieldSelector)
  std::vector<kube::Taint> taints;  // spec.taints
};

// One term of placement.clusterAffinity / clusterAffinities.
struct ClusterTerm {
  std::vector<std::string> names, exclude;
  kube::LabelSelector labels;
  std::vector<kube::Requirement> fields;   // provider/region/zone In/NotIn
  bool matches(const MemberCluster& c) const;
};

// The pods a binding stands for, as the single-cluster core sees them.
struct Gang {
  std::string queue = kDefaultQueue;
  int32_t min_member = 0;           // vcjob spec.minAvailable; all replicas otherwise
  int32_t replicas = 0;
  int32_t priority = 0;
  NetworkTopology topology;
  std::vector<SubGroupRule> sub_groups;   // tasks' partitionPolicy, as Volcano's controller writes it on the PodGroup
  bool same_ib_cluster = false;
  std::vector<PodInfo> pods;        // one per replica, pending, group "<ns>/weft-global"
  std::vector<std::string> tasks;   // task name per pod ("" outside Volcano Jobs)
  kube::ResourceList total;         // summed requests (pods aside)
  std::string signature;            // equal for gangs the core treats alike
};

struct TargetCluster {
  std::string name;
  int32_t replicas = 0;
};

// work.karmada.io/v1alpha2 ResourceBinding with its workload resolved.
struct BindingInfo {
  std::string key, namespace_name, name, where;
  std::string workload;             // "Kind ns/name"
  std::string workload_kind, workload_name;
  Gang gang;
  bool suspended = false;           // spec.suspension.scheduling
  std::vector<TargetCluster> clusters;   // spec.clusters
  std::vector<ClusterTerm> affinity_groups;   // tried in order; empty = every cluster
  std::vector<kube::Toleration> cluster_tolerations;
  int32_t min_groups = 1;           // placement.spreadConstraints minGroups
  bool divisible = false;           // replicaScheduling Divided, and not a Volcano Job (a gang)
  std::string created;              // metadata.creationTimestamp (RFC 3339 sorts as text)
  nlohmann::json conditions = nlohmann::json::array();   // status.conditions as read
};

struct QueueExtra {
  int32_t priority = 0;             // spec.priority: higher queues are served first
};

struct GlobalState {
  std::map<std::string, MemberCluster> clusters;
  std::vector<BindingInfo> bindings;                 // sorted by key
  std::map<std::string, QueueInfo> queues;           // "default" always present
  std::map<std::string, QueueExtra> queue_extras;
  std::map<std::string, Snapshot> members;           // per member: its Nodes, Pods, HyperNodes
  // Per member: pod key -> {binding key, task} for the pods a dispatched binding created.
  std::map<std::string, std::map<std::string, std::pair<std::string, std::string>>> pod_owners;
};

// Collects objects, then resolves bindings against workloads and members. Errors name
// `where` and the field: "cp.yaml: document 4 (ResourceBinding ml/train): spec.resource.kind: missing".
class GlobalBuilder {
 public:
  Status add(const nlohmann::json& object, const std::string& where = "");
  // Errors: a binding naming an unknown cluster, a member object for no Cluster, bad workloads.
  // In `run` a bad binding is left out (its error in skipped) rather than failing the cycle.
  Result<GlobalState> build(std::vector<std::string>* skipped = nullptr);

 private:
  struct Sourced {
    nlohmann::json object;
    std::string where;
  };
  Status add_checked(const nlohmann::json& object, const std::string& where);   // add() without the type net

  std::vector<Sourced> clusters_, bindings_, workloads_, queues_, priority_classes_;
  std::map<std::string, std::vector<Sourced>> member_objects_;
};

// Kinds the control plane may hold that the builder reads as workloads.
bool is_workload_kind(const std::string& api_version, const std::string& kind);

}  // namespace weft::scheduler::global
