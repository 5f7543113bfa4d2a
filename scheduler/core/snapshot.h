// The scheduler's view of the cluster at the start of one cycle, built from plain
// Kubernetes objects (nlohmann::json as the API returns them): v1 Node, v1 Pod,
// scheduling.k8s.io/v1 PriorityClass, scheduling.volcano.sh/v1beta1 PodGroup and Queue,
// topology.volcano.sh/v1alpha1 HyperNode. No I/O: callers list/watch or read files.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/keys.h"
#include "common/result.h"
#include "common/shared_string.h"
#include "scheduler/core/storage.h"
#include "kube/quantity.h"
#include "kube/reservation.h"
#include "kube/selector.h"
#include "kube/taints.h"
#include "scheduler/core/pod_contract.h"

namespace weft::scheduler {

using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;

inline constexpr const char* kDefaultQueue = "default";

struct NodeLoad {
  double cpu = 0, memory = 0;   // ratios 0..1
  double window_s = 0;
  std::string source;
  std::optional<TimePoint> at;           // the older of the two readings
  TimePoint cpu_at{}, memory_at{};       // each reading's own time (the descheduler's freshness)
};

struct NodeInfo {
  std::string name;
  kube::InternedLabels labels;      // keys and values shared with every node decoded through the same pools
  kube::ResourceList allocatable;   // includes "pods" when the node states it
  std::vector<kube::Taint> taints;
  bool ready = true;
  bool unschedulable = false;       // cordoned
  std::optional<NodeLoad> load;
  std::string load_error;           // why a weft.dev/load annotation present was not read
};

// Where a pod may go by its own spec: spec.tolerations, and spec.nodeSelector with the
// required node affinity; then what kube-scheduler's default profile reads beside them
// (pod_contract.h). Pods of one template share one (see DecodePools).
struct PodConstraints {
  std::vector<kube::Toleration> tolerations;
  kube::NodeAffinity affinity;
  PodContract contract;
};

// Fields that repeat across pods are shared: decoded through DecodePools (the run cache
// keeps them) equal texts and equal constraints are one object, and a snapshot's copy of a
// record shares them too.
struct PodInfo {
  std::string key;                  // "ns/name"
  SharedString namespace_name;
  std::string name;
  SharedString group;               // PodGroup key "ns/name" (spec.schedulingGroup: kube::native_group_key); "" for none
  kube::ResourceList request;
  std::shared_ptr<const PodConstraints> constraints;   // null: none
  int32_t priority = 0;
  SharedString priority_class;
  SharedString node;                // bound node, "" when pending
  SharedString phase;               // Pending, Running, Succeeded, Failed
  SharedString scheduler_name;
  bool terminating = false;         // metadata.deletionTimestamp: holds its node; never placed, never a
                                    // victim, never one of its job's running pods
  std::optional<bool> preemptable;  // volcano.sh/preemptable (annotation, else label); unset: the PodGroup's, else true
  SharedString task_role;           // volcano.sh/task-spec (annotation, else label), for minTaskMember
  // When the pod was bound, if known (PodScheduled condition, else status.startTime).
  std::optional<TimePoint> scheduled_at;
  // Equal for pods that the static filters (taints, selector, affinity) treat alike.
  SharedString filter_signature;
  kube::InternedLabels labels;      // metadata.labels (what inter-pod affinity and spread select by)
  bool scheduling_gated = false;    // spec.schedulingGates not empty: no candidate until the gates are removed
  bool resource_claims = false;     // spec.resourceClaims not empty (DRA, not built: never bound)
  const std::vector<kube::Toleration>& tolerations() const;
  const kube::NodeAffinity& affinity() const;
  const PodContract& contract() const;
  // Not a candidate whatever the nodes: gated, or asking for DRA claims weft cannot allocate.
  bool held_back() const { return scheduling_gated || resource_claims; }
  // {reason, message} for a held-back pod.
  std::pair<std::string, std::string> held_back_reason() const;
  bool best_effort() const;         // requests nothing
  bool terminal() const;             // Succeeded or Failed
  bool bound() const { return !node.empty() && !terminal(); }
  // One of its job's running pods (minMember, shares): bound and not being deleted, as
  // Volcano counts Bound/Running but not Releasing. A terminating pod still holds its node.
  bool running_member() const { return bound() && !terminating; }
  // Sets spec.nodeName as a binding would: a Pending pod with a node counts as Running.
  void set_node(SharedString node_name);
  std::shared_ptr<const PodVolumes> volumes;   // claims and inline CSI volumes of spec.volumes; null: none
};

struct NetworkTopology {
  enum class Mode { None, Hard, Soft };
  Mode mode = Mode::None;
  int highest_tier = 0;             // 0: no limit
  std::string highest_tier_name;    // highestTierName: resolved against HyperNode spec.tierName
};

// A rule that splits a job's pods into sub-groups, each placed whole inside one domain:
// a Volcano subGroupPolicy entry, or the children of a Kubernetes CompositePodGroup.
struct SubGroupRule {
  std::string name;
  NetworkTopology topology;         // Volcano: the sub-group's networkTopology (Mode::None: none)
  std::string topology_key;         // Kubernetes: the child PodGroup's topology key ("" = none)
  int32_t size = 1;                 // pods each sub-group needs at once (subGroupSize, minCount)
  int32_t min_groups = 0;           // sub-groups that must start together (minSubGroups, minGroupCount)
  std::optional<kube::LabelSelector> selector;   // Volcano: pods it takes (absent: all)
  std::vector<std::string> match_label_keys;     // Volcano: sub-group = equal values of these labels
  std::vector<std::string> children;             // Kubernetes: child PodGroup keys (one sub-group each)
};

struct PodGroupInfo {
  std::string key;                  // "ns/name"; a scheduling.k8s.io group: kube::native_group_key
  std::string queue = kDefaultQueue;
  int32_t min_member = 1;          // absent in the object: 0, as Volcano reads it
  kube::ResourceList min_resources;
  bool has_min_resources = false;
  int32_t priority = 0;
  std::string priority_class;
  NetworkTopology topology;
  bool same_ib_cluster = false;     // annotation weft.dev/ib-cluster: same
  std::map<std::string, int32_t> min_task_member;   // spec.minTaskMember: task role -> pods
  std::optional<bool> preemptable;  // volcano.sh/preemptable (annotation, else label)
  std::optional<kube::Reservation> reservation;   // weft.dev/reserved-room, written by GangDefragment
  nlohmann::json status = nlohmann::json::object();   // as last written (phase, running, conditions...)
  std::string phase() const;        // status.phase, "Pending" when unset
  // scheduling.k8s.io groups (PodGroup, CompositePodGroup): Volcano's fields keep their defaults.
  bool native = false;
  std::string api_version;          // the condition type kube-scheduler writes depends on it
  std::string kind = "PodGroup";    // or CompositePodGroup
  std::string topology_key;         // schedulingConstraints.topology[0].key: the whole group in one domain
  std::string parent;               // parentCompositePodGroupName, as a group key; "" = a root
  std::optional<int32_t> explicit_priority;   // spec.priority (else priorityClassName resolves it)
  bool never_preempts = false;      // preemptionPolicy: Never
  bool disrupt_all = false;         // disruptionMode.all: its pods are evicted together or not at all
  std::vector<SubGroupRule> sub_groups;   // subGroupPolicy; a CompositePodGroup: its children
  std::string pod_index_label;      // annotation weft.dev/pod-index-label: the label holding each pod's rank
};

struct QueueInfo {
  std::string name;
  double weight = 1;
  kube::ResourceList capability, deserved, guarantee;   // empty = not set
  bool open = true;                 // status.state / spec.state Closed stops new work
  bool reclaimable = true;          // spec.reclaimable
  int32_t priority = 0;             // spec.priority: higher goes first, and is reclaimed from last
  std::string parent;               // spec.parent (hierarchical queues, capacity plugin); "" = root
};

// One member selector of a HyperNode, as in topology.volcano.sh/v1alpha1.
struct HyperNodeMember {
  enum class Type { Node, HyperNode };
  Type type = Type::Node;
  std::string exact_name;           // selector.exactMatch.name
  std::string regex;                // selector.regexMatch.pattern
  std::optional<kube::LabelSelector> labels;   // selector.labelMatch
};

struct HyperNodeInfo {
  std::string name;
  int tier = 1;
  std::string tier_name;            // spec.tierName
  std::vector<HyperNodeMember> members;
};

struct Snapshot {
  std::vector<NodeInfo> nodes;                       // sorted by name
  std::vector<PodInfo> pods;                         // sorted by key
  std::map<std::string, PodGroupInfo> podgroups;     // by key
  std::map<std::string, QueueInfo> queues;           // by name ("default" always present)
  std::vector<HyperNodeInfo> hypernodes;             // empty: derived from node labels
  std::map<std::string, int32_t> priority_classes;
  std::map<std::string, kube::Labels> namespaces;    // Namespace objects' labels, by name (namespaceSelector)
  std::map<std::string, std::vector<std::string>> workloads;   // scheduling.k8s.io Workloads: key -> template names
  TimePoint now = Clock::now();                      // for the age of load annotations
  StorageObjects storage;                            // PVs, claims, classes, CSINodes (storage.h)
};

class DecodePools;

// One Node or Pod as the snapshot takes it, decoded from its object (the same checks
// and errors as SnapshotBuilder::add). Callers that keep decoded objects across cycles
// (weft-scheduler run's cache) decode each object once and add() the result.
Result<NodeInfo> node_info_of(const nlohmann::json& node, const std::string& where = "", DecodePools* pools = nullptr);
// What records decoded one by one over a long time share: texts, and the constraints of
// pods with the same filter_signature (the JSON they are decoded from). Thread-safe.
class DecodePools {
 public:
  StringPool strings;
  // The constraints decoded for this signature before, else null.
  std::shared_ptr<const PodConstraints> constraints(const std::string& signature) const;
  std::shared_ptr<const PodConstraints> keep(const std::string& signature, PodConstraints decoded);
  // Drops what no record holds any more (texts and constraints).
  void sweep();

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const PodConstraints>> constraints_;
};

// `pools` (optional) shares texts and constraints with every other record decoded through them.
Result<PodInfo> pod_info_of(const nlohmann::json& pod, const std::string& where = "", DecodePools* pools = nullptr);
// The same straight from the Pod's JSON text, without a tree (the run cache's watch events).
Result<PodInfo> pod_info_of_text(std::string_view pod_text, const std::string& where = "", DecodePools* pools = nullptr);
struct PodFields;
// Both of the above: the rules that make a PodInfo of what was read (pod_fields.h).
Result<PodInfo> pod_info_from(PodFields&& fields, const std::string& where = "", DecodePools* pools = nullptr);
// The same for nodes (node_fields.h).
Result<NodeInfo> node_info_of_text(std::string_view node_text, const std::string& where = "",
                                   DecodePools* pools = nullptr);
struct NodeFields;
Result<NodeInfo> node_info_from(NodeFields&& fields, const std::string& where = "", DecodePools* pools = nullptr);

// Collects objects, then builds a Snapshot. Errors name `where` (e.g. "s.yaml: document 3
// (Pod default/p)") and the field ("spec.containers[0].resources.requests: resource 'cpu': ...").
class SnapshotBuilder {
 public:
  Status add(const nlohmann::json& object, const std::string& where = "");
  void add(NodeInfo node) { snap_.nodes.push_back(std::move(node)); }
  void add(PodInfo pod) { snap_.pods.push_back(std::move(pod)); }
  void reserve(size_t nodes, size_t pods);
  size_t pods_added() const { return snap_.pods.size(); }
  // The memory reserved for pods (its start and room in pods): for a thread that faults it
  // in ahead of the adds. Valid until reserve is called again.
  std::pair<void*, size_t> reserved_pod_room() { return {snap_.pods.data(), snap_.pods.capacity()}; }
  // Resolves priority classes, the default queue and pod counts per group.
  Snapshot build(TimePoint now = Clock::now());
  // Where each pod added landed in the snapshot last built (its index in Snapshot::pods),
  // by order of add: a caller that keeps its own record of a pod finds its twin directly.
  const std::vector<size_t>& pod_slots() const { return pod_slots_; }

 private:
  Snapshot snap_;
  std::optional<int32_t> default_priority_;
  std::vector<size_t> pod_slots_;
};

// Kinds the snapshot understands (others are an error in add()).
bool known_kind(const std::string& kind);

}  // namespace weft::scheduler
