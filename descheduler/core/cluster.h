// A compact, JSON-free picture of the cluster the planner works on: nodes, the pods bound
// to them, PodGroups and PriorityClasses. Built object by object so a caller can stream
// a large list and drop each JSON object as soon as it is added.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/keys.h"
#include "common/result.h"
#include "common/shared_string.h"
#include "descheduler/core/load.h"
#include "descheduler/core/pdb.h"
#include "descheduler/core/pod_facts.h"
#include "descheduler/core/plugins/common/pod_status.h"
#include "descheduler/core/qos.h"
#include "kube/quantity.h"
#include "kube/selector.h"
#include "kube/taints.h"
#include "scheduler/core/snapshot.h"
#include "scheduler/core/topology.h"

namespace weft::descheduler {

// The descheduler's own annotations (weft's keys are in common/keys.h): opt-in to eviction,
// and "evict me last among my priority and QoS class".
inline constexpr const char* kEvictAnnotation = "descheduler.alpha.kubernetes.io/evict";
inline constexpr const char* kPreferNoEvictionAnnotation = "descheduler.alpha.kubernetes.io/prefer-no-eviction";

struct NodeInfo {
  std::string name;
  kube::Labels labels;
  kube::ResourceList allocatable;
  std::vector<kube::Taint> taints;
  bool ready = true;
  bool unschedulable = false;
  // From the weft.dev/load annotation when present; annotation_error when it did not parse.
  std::optional<LoadSample> annotated_load;
  std::string annotation_error;
  // Derived when the cluster is finished.
  kube::ResourceList requested;
  std::vector<int> pods;
  std::vector<int> terminal_pods;       // Succeeded or Failed pods still bound here (PodInfo::terminal)
};

// What only eviction reads (QoS, owners, status detail, mirror, annotations, budgets...);
// what the scheduler reads too (requests, labels, tolerations, node affinity, the pod
// contract) is its PodInfo in Cluster::snapshot, decoded once in the same pass (spec()).
// Texts that repeat across pods (namespace, priority class, owner, PodGroup, phase) are
// pooled SharedStrings (ClusterBuilder keeps the pool).
struct PodInfo {
  SharedString ns;
  std::string name;
  int node = -1;
  int32_t priority = 0;
  bool priority_in_spec = false;        // else resolved from priority_class when finishing
  bool has_priority = false;            // spec.priority set or resolved; upstream evicts pods without one first
  SharedString priority_class;
  QosClass qos = QosClass::BestEffort;
  // The controller reference, else the first owner reference (upstream counts any
  // ownerReference as owned); empty for a bare pod.
  SharedString owner_kind, owner_name;
  SharedString owner_uid;               // minReplicas counts pods per owner uid, as upstream
  int owner_count = 0;                  // ownerReferences; minReplicas checks only pods with one
  bool daemonset = false;               // any ownerReference of kind DaemonSet
  SharedString group;                   // PodGroup name (same namespace), from the annotation
  SharedString phase;
  std::optional<TimePoint> started;     // status.startTime: minPodAge counts from it
  bool mirror = false;                  // mirror or static (config.source not "api")
  bool terminating = false;
  bool has_pvc = false;
  bool has_local_storage = false;
  bool evict_annotation = false;
  bool prefer_no_eviction = false;
  std::vector<int> pdbs;                // Cluster::pdbs whose selector matches, set when finishing
  // Read by the upstream strategy plugins (RemoveFailedPods, PodLifeTime, ...).
  PodStatusInfo detail;
  // Succeeded or Failed: listed on NodeInfo::terminal_pods only, counted nowhere else.
  bool terminal = false;
  int core = -1;                        // the same pod in Cluster::snapshot (its index there)
  const scheduler::PodInfo* spec = nullptr;   // that pod (set when finishing; the Cluster is not copied)

  const kube::ResourceList& requests() const { return spec->request; }
  const kube::InternedLabels& labels() const { return spec->labels; }
  const std::vector<kube::Toleration>& tolerations() const { return spec->tolerations(); }
  const kube::NodeAffinity& affinity() const { return spec->affinity(); }
  bool requests_rdma() const;            // some requested resource names RDMA

  std::string key() const { return ns + "/" + name; }
  // The unit the cooldown applies to: the gang, else the controller, else the pod.
  std::string workload() const;
  // The owner's identity for minReplicas: its uid, else kind/ns/name.
  std::string owner_key() const;
};

struct Cluster {
  Cluster() = default;
  Cluster(Cluster&&) = default;
  Cluster& operator=(Cluster&&) = default;
  Cluster(const Cluster&) = delete;              // pods point into the snapshot
  Cluster& operator=(const Cluster&) = delete;

  std::vector<NodeInfo> nodes;
  std::unordered_map<std::string, int> node_index;
  std::vector<PodInfo> pods;
  // "ns/name"; as the scheduler decodes them (minMember, weft.dev/ib-cluster, networkTopology).
  std::map<std::string, scheduler::PodGroupInfo> groups;
  std::map<std::string, int32_t> priority_classes;
  std::unordered_map<std::string, int> running_in_group;   // "ns/name" -> bound, live pods
  std::unordered_map<std::string, int> pods_of_owner;      // owner key (PodInfo::owner_key) -> live pods
  std::vector<PdbInfo> pdbs;
  // The scheduler's picture of the same objects (its one decode of nodes, pods, PodGroups,
  // HyperNodes, Queues and storage): what the scheduler's fit (scheduler/core/query/fit.h)
  // is asked on. Per node its index there (PodInfo::core for pods).
  scheduler::Snapshot snapshot;
  std::vector<int> topology_node;
  // The scheduler's network domains over these nodes (its HyperNodes, else derived from
  // the agents' labels); indexed as the snapshot's nodes.
  scheduler::Topology topology;

  const NodeInfo* node(const std::string& name) const;
};

// The load the nodes' weft.dev/load annotations report (--load annotations).
LoadReport load_from_annotations(const Cluster& cluster);

// Whether the object arrives in a later cycle of a scenario (weft.dev/arrival-cycle > 0);
// errors name `where` and the annotation.
Result<bool> arrives_later(const nlohmann::json& object, const std::string& where);

class ClusterBuilder {
 public:
  // Adds one object; every kind the scheduler's snapshot reads goes to its SnapshotBuilder
  // (the one reader of PodGroups, HyperNodes, Queues and storage objects); Nodes, bound Pods,
  // PriorityClasses and PodDisruptionBudgets are kept here too; other kinds are ignored, as
  // are objects that arrive later (weft.dev/arrival-cycle > 0); finished pods are kept as
  // PodInfo::terminal.
  // Errors name `where` and the field; a failed add changes nothing.
  Status add(const nlohmann::json& object, const std::string& where);
  // A Pod from its JSON text, read in one pass without a tree (pod_facts.h).
  Status add_pod_text(std::string_view text, const std::string& where);
  // The object as a Pod when it is one (its kind says so, or, with `kind_implied`, says
  // nothing: a pod list's items) and adds cleanly; else false, nothing changed, and the
  // caller adds its tree (whose errors name more).
  bool added_as_pod(std::string_view text, const std::string& where, bool kind_implied);
  // A Pod as read from its text, before it is added (add_read). `later`: it arrives in a
  // later cycle, so adding it adds nothing.
  struct ReadPod {
    scheduler::PodInfo spec;
    std::optional<PodInfo> bound;   // a bound pod's eviction record, kept here too
    std::string node;
    bool later = false;
  };
  // A Node as read from its text: the scheduler's record and this side's, made from it.
  struct ReadNode {
    scheduler::NodeInfo spec;
    NodeInfo own;
    bool later = false;
  };
  // Reads pods and nodes as add_pod_text and added_as_pod do, touching nothing of a
  // builder, so they can be read on several threads, one reader each. Each reader pools
  // through the pools it is given: readers on different threads given different pools
  // share no lock and no text's count (a text read by two such readers is two equal texts,
  // not one object).
  class TextReader {
   public:
    explicit TextReader(scheduler::DecodePools& pools) : pools_(pools), facts_(pools.strings) {}
    Result<ReadPod> read_text(std::string_view text, const std::string& where);
    // Null when not a pod it takes (see added_as_pod).
    std::optional<ReadPod> read_if_pod(std::string_view text, const std::string& where, bool kind_implied);
    // The same for a Node (`kind_implied`: a node list's item). Null for anything else and
    // for a node it would refuse: add() reads that one's tree, whose errors name more.
    std::optional<ReadNode> read_if_node(std::string_view text, const std::string& where, bool kind_implied);

   private:
    Result<ReadPod> read_fields(scheduler::PodFields&& fields, const std::string& where);
    scheduler::DecodePools& pools_;
    PodFactsReader facts_;      // reused: its lists keep their room from pod to pod
    scheduler::PodFields fields_;   // reused the same way
  };
  // The builder's own reader (pooling with add()), for the thread that adds.
  TextReader& text_reader() { return reader_; }
  // Adds what a TextReader read. Objects added in the order of their texts make the same
  // cluster as add_pod_text / added_as_pod / add over the same texts.
  void add_read(ReadPod&& pod);
  // False (nothing changed) for a node added already: add() the node's tree to be told so.
  bool add_read(ReadNode&& node);
  // Room for about this many pods, so a big list does not regrow (and move) the pods.
  void reserve_pods(size_t pods);
  // Where the pods reserved for will be kept (both records of each): for a thread that
  // faults that memory in ahead of the adds (common/fault_in.h), so adding does not wait
  // for the kernel to zero it. Valid until reserve_pods is called again or more pods are
  // added than were reserved for (faulting in a room since left is harmless: fault_in.h).
  struct PodRoom {
    struct Records {
      void* begin = nullptr;
      size_t bytes_per_pod = 0;
      size_t pods = 0;
    };
    Records own, scheduling;
    // Faults in the room of the first `pods` pods.
    void fault_in(size_t pods) const;
  };
  PodRoom reserved_pod_room();
  // How many pods the nodes added so far can hold (allocatable pods, 110 when not given):
  // a bound on the bound pods still to come.
  size_t pod_capacity() const;
  // Binds pods to nodes, sums requests, counts gangs and owners, matches PodDisruptionBudgets
  // (a budget without status gets disruptionsAllowed computed from its spec), resolves the
  // network topology. Pods on unknown nodes are dropped. `now`: the snapshot's clock.
  Cluster finish(TimePoint now = std::chrono::system_clock::now());

 private:
  Status add_checked(const nlohmann::json& object, const std::string& where);   // add() without the type net
  Status add_pod(const nlohmann::json& object, const std::string& where);

  Cluster cluster_;
  std::vector<std::string> pod_nodes_;
  std::vector<size_t> pod_twins_;          // per pod, its order of add to scheduling_ (SnapshotBuilder::pod_slots)
  scheduler::DecodePools decode_pools_;   // texts and constraints, shared by both records of a pod
  TextReader reader_{decode_pools_};
  scheduler::SnapshotBuilder scheduling_;
};

}  // namespace weft::descheduler
