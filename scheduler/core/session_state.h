// Internal state of one session shared by the actions (allocate, backfill, reclaim,
// preempt) and the status writer.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/core/cluster_state.h"
#include "scheduler/core/fairshare.h"
#include "scheduler/core/session.h"
#include "scheduler/core/topology.h"

namespace weft::scheduler {

struct Job {
  std::string key;                    // PodGroup key, or the pod key of a pod without a group
  const PodGroupInfo* group = nullptr;
  std::string queue = kDefaultQueue;
  int min_member = 1;
  int priority = 0;
  std::vector<int> pods;              // every pod of the job (indices into Snapshot::pods)
  std::vector<int> pending;           // pods this scheduler may place
  int bound = 0, succeeded = 0, failed = 0;
  kube::ResourceList allocated;
  std::string phase = "Pending";      // Pending | Inqueue | Running | Unknown | Completed
  bool enqueued = false;
  // Why the job (or some of its pods) is not placed: {reason, message}.
  std::optional<std::pair<std::string, std::string>> unschedulable;
  std::string blocked;                // a reason that keeps it from being tried at all
  std::string blocked_reason;         // condition reason for `blocked`
  int evicted_this_cycle = 0;
  int occupied() const { return bound + succeeded; }
  bool has_nonbest_effort_pending = false;
};

struct SessionState {
  SessionState(const Snapshot& s, const Config& c, const SessionOptions& o) : snap(s), config(c), opts(o), cluster(s, c) {}

  const Snapshot& snap;
  const Config& config;
  const SessionOptions& opts;
  ClusterState cluster;
  std::unique_ptr<Topology> topology;   // built when a job needs it
  std::vector<Job> jobs;
  std::vector<int> job_of_pod;          // per pod: job index, -1 when none
  std::vector<int> node_of_pod;         // per pod: node index, -1 when not bound (updated by decisions)
  std::map<std::string, QueueAccount> queues;
  kube::ResourceList total;             // usable capacity (proportion)
  Decisions out;

  const Topology& topo();
  int node_index(const std::string& name) const;

  // Books a placement: node resources, queue and job accounting.
  void assume(int pod, int node);
  void release(int pod, int node);
  QueueAccount* queue_of(const Job& j);
  bool gang() const { return config.has("gang"); }
  int need_of(const Job& j) const;   // pods still to place at once for the gang to be whole
};

// A node set a job may be confined to: a HyperNode (tier >= 1) or an IB cluster (tier 0).
struct DomainRef {
  std::string name;
  int tier = 0;
  const std::vector<int>* nodes = nullptr;   // ascending node indices
};
// The domains placement tries first for a job with an IB-cluster or network-tier
// constraint: HyperNodes of tier <= highestTierAllowed (only single-fabric ones for an
// ib-cluster job) when it has a networkTopology, else the IB clusters. Only domains
// holding every pod of the job already bound. Empty for a job with no such constraint.
std::vector<DomainRef> allowed_domains(SessionState& s, const Job& job);
// The domains such a job may never leave: the HyperNodes for a hard tier, else the IB
// clusters (a soft IB-cluster job may spread over tiers, not over fabrics).
std::vector<DomainRef> confining_domains(SessionState& s, const Job& job);
// Hard tier or one IB cluster: the job may never spread over several domains.
bool domain_bound(const Job& job);

// Actions.
void enqueue(SessionState& s);
void allocate(SessionState& s, bool best_effort_only);
void reclaim(SessionState& s, bool within_queue);
// Places the job's pending pods (gang, ib-cluster, HyperNode tiers); commits bindings or rolls back.
bool place_job(SessionState& s, Job& job, const std::vector<int>& tasks);
void write_statuses(SessionState& s);

}  // namespace weft::scheduler
