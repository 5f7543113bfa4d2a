// A job (a PodGroup, or a pod without one) and a queue as one session sees them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/core/framework/quantities.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

// Pods of a job placed whole inside one domain (a Volcano sub-group, or a child PodGroup
// of a CompositePodGroup); `rule` indexes the job's PodGroupInfo::sub_groups.
struct SubGroup {
  std::string name;                   // "<rule>/<label values>", or the child PodGroup's key
  int rule = 0;
  std::vector<int> pods;              // every pod of the sub-group
  int size = 1;                       // pods it needs at once
  const NetworkTopology* topology = nullptr;   // Volcano: its tier limit; null or Mode::None: none
  std::string topology_key;           // Kubernetes: a node label its pods share; "" = none
  const PodGroupInfo* child = nullptr;         // Kubernetes: the child PodGroup
  int scope = -1;                     // Kubernetes: the Job::scopes entry of its parent CompositePodGroup
};

// A CompositePodGroup of a (possibly nested) composite job: scope 0 is the job's root, the
// others its descendant composites. Each holds its whole subtree inside one domain of its
// topology key, and starts only with min_groups of its children (sub-groups and scopes)
// ready at once.
struct Scope {
  const PodGroupInfo* group = nullptr;
  int parent = -1;
  std::vector<int> scopes;            // child composites (Job::scopes indices)
  std::vector<int> subgroups;         // child PodGroups (Job::subgroups indices)
  int min_groups = 0;                 // gang.minGroupCount; 0: basic (children independent)
};

struct Job {
  std::string key;                    // PodGroup key, or the pod key of a pod without a group
  const PodGroupInfo* group = nullptr;
  std::string queue = kDefaultQueue;
  int min_member = 1;
  int priority = 0;
  bool preemptable = false;           // volcano.sh/preemptable on the PodGroup (false when unset)
  std::vector<int> pods;              // every pod of the job (indices into Snapshot::pods)
  std::vector<int> pending;           // pods this scheduler may place
  int bound = 0, succeeded = 0, failed = 0;
  int pipelined = 0;                  // pods holding room freed by evictions this cycle
  std::map<std::string, int> bound_by_task;   // task role -> bound (for minTaskMember); "" for pods without a role
  Quantities allocated;
  std::string phase = "Pending";      // Pending | Inqueue | Running | Unknown | Completed
  bool enqueued = false;
  // Why the job (or some of its pods) is not placed: {reason, message}.
  std::optional<std::pair<std::string, std::string>> unschedulable;
  std::string blocked;                // a reason that keeps it from being tried at all
  std::string blocked_reason;         // condition reason for `blocked`
  int evicted_this_cycle = 0;
  bool has_nonbest_effort_pending = false;
  std::vector<SubGroup> subgroups;    // empty: the job is one unit
  std::vector<Scope> scopes;          // a composite job's CompositePodGroups; empty otherwise

  int occupied() const { return bound + succeeded; }
};

struct QueueAccount {
  const QueueInfo* info = nullptr;
  Quantities allocated;   // bound pods of its jobs
  Quantities request;     // allocated + every pending pod of its jobs
  Quantities inqueue;     // minResources of jobs Inqueue without bound pods
  Quantities deserved;    // set by proportion or capacity
  Quantities capability;  // the effective cap (capacity: bounded by the parents'); empty = none
  std::vector<std::string> children;   // hierarchy (capacity with enableHierarchy)
};

}  // namespace weft::scheduler
