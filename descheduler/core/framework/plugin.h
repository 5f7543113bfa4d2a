// The descheduler's plugin interface, in the Kubernetes descheduler's shape: every
// profile's Deschedule plugins run (each evicts what breaks one rule on a set of nodes),
// then every profile's Balance plugins (each moves pods across nodes). Plugins never evict
// by themselves: they ask their profile's Evictor, which owns every eviction rule (the DefaultEvictor's filters,
// PodDisruptionBudgets, a gang's minMember, the fabric or tier domain, cooldown, nodeFit
// and the maxNoOfPodsToEvict* limits) and records what it allowed in the cycle's plan.
//
// Plugins see the cluster read-only and refer to pods and nodes by their index in
// Cluster::pods and Cluster::nodes. Nothing here does I/O: a plugin plans, the binary
// carries the plan out.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/cluster.h"
#include "descheduler/core/load.h"
#include "descheduler/core/planner.h"
#include "descheduler/core/policy.h"
#include "descheduler/core/state.h"

namespace weft::descheduler::framework {

// One eviction a plugin asks for.
struct EvictionRequest {
  int pod = -1;                    // Cluster::pods index
  // The node the plugin planned the pod to go back to (Balance plugins that pick one), or
  // -1: the evictor then needs some node in the pod's domain that takes it (with nodeFit).
  int target = -1;
  std::string reason;              // shown in the plan, e.g. "high-load: cpu 91.0% > 80.0%"
  std::string plugin;              // the asking plugin's name (upstream's StrategyName)
  // The load the move carries (millicores, millibytes), remembered on the target for one
  // window; sized_by: "usage" (a fresh per-pod reading) or "requests".
  double cpu = 0, memory = 0;
  std::string sized_by = "requests";
};

// pre_eviction_filter's target for a plugin that picks the target itself afterwards
// (with target_blocker); evict() then checks the target it names.
inline constexpr int kTargetChosenLater = -2;

// A profile's evictor (its DefaultEvictor), sharing the cycle's ledger. Reasons are the plan's skip reasons
// (docs/descheduler.md): "" means yes.
class Evictor {
 public:
  virtual ~Evictor() = default;

  // Filter: may this pod be evicted at all, whatever else is planned (mirror, terminating,
  // DaemonSet, bare, system-critical, priorityThreshold, PVC, local storage, no PDB,
  // labelSelector, namespaces, minReplicas, minPodAge; the evict annotation lifts the
  // upstream ones). Plugins use it to pick candidates.
  virtual std::string filter(int pod) const = 0;

  // PreEvictionFilter: may it be evicted now, given the evictions already allowed this
  // cycle: the limits, cooldown, the gang kept at minMember (under either group key),
  // the PodDisruptionBudgets (a pod under two is refused, as the Eviction API does), and
  // then the target: a node index is checked with target_blocker; -1: some other ready,
  // schedulable node in its domain takes it (fitting it, with nodeFit);
  // kTargetChosenLater: not yet.
  virtual std::string pre_eviction_filter(int pod, int target = -1) const = 0;

  // PreEvictionFilter as upstream's plugins ask it when they list a node's pods (wrapped
  // with Filter into the listing): "evicted", the namespaceLabelSelector and some other
  // node taking the pod (domain, nodeFit), judged now. The cycle's limits, budgets, gang
  // and cooldown are evict()'s, as upstream's PodEvictor and Eviction API check them then.
  virtual std::string listing_filter(int pod) const = 0;

  // Could `node` take the pod back: in the pod's fabric or tier domain ("topology") and,
  // with nodeFit, the pod fits there with this cycle's moves counted ("node-fit"): the
  // scheduler's own fit (scheduler/core/query/fit.h), the pod taken off its node.
  virtual std::string target_blocker(int pod, int node) const = 0;

  // Whether the scheduler could place the pod on `node`, room aside: its filters (ready,
  // unschedulable, taints, node selector and affinity, host ports, volumes, inter-pod
  // (anti-)affinity, hard topology spread) with this cycle's moves counted and the pod off
  // its own node. "" yes, else the scheduler's reason.
  virtual std::string placement_blocker(int pod, int node) const = 0;
  // The same with the room counted (the scheduler's whole fit, upstream's NodeFit).
  virtual std::string fit_blocker(int pod, int node) const = 0;

  // The reasons of the scheduler's filters that count other pods (host ports, inter-pod
  // (anti-)affinity, topology spread, volumes), each filter's first, were the pod on `node`
  // again with this cycle's moves counted: what a pod breaks where it runs now.
  virtual std::vector<std::string> other_pod_blockers(int pod, int node) const = 0;

  // Checks filter, pre_eviction_filter and the target, then records the eviction in the
  // plan and counts it (limits, budgets, gang, the target's room). Returns "" when
  // evicted, else the reason, which is recorded as the pod's skip.
  virtual std::string evict(const EvictionRequest& request) = 0;

  // Already evicted this cycle (by any plugin of any profile): not a candidate again.
  virtual bool evicted(int pod) const = 0;

  // Upstream's limit errors: a plugin stops on a node (or the whole cycle) when reached.
  virtual bool node_limit_reached(int node) const = 0;
  virtual bool total_limit_reached() const = 0;
  // Evictions left under maxNoOfPodsToEvictTotal this cycle; none: no limit.
  virtual std::optional<int> total_left() const = 0;

  // For plugins that choose a set of victims at once (GangDefragment): the pods of `pods`
  // that draw on a budget the whole set would overdraw (a PodDisruptionBudget, a gang's
  // room above minMember, the per-node or per-namespace limit). Empty: the set may go.
  virtual std::vector<int> overdrawn(const std::vector<int>& pods) const = 0;
};

// What a plugin gets for one cycle.
class Handle {
 public:
  virtual ~Handle() = default;
  virtual const Cluster& cluster() const = 0;
  virtual Evictor& evictor() = 0;
  virtual TimePoint now() const = 0;
  // The measured load (metricsProviders / LoadAware.metrics); empty when none is read.
  virtual const LoadReport& load() const = 0;
  // What earlier cycles remembered: resting sources, moved workloads, arrivals.
  virtual const DeschedulerState& state() const = 0;
  // A candidate the plugin itself decided to leave (e.g. "source-resting", "no-target").
  virtual void skip(int pod, const std::string& reason) = 0;
  // A cycle-level remark for the log and the plan's notes.
  virtual void note(const std::string& text) = 0;
  // The node verdicts a Balance plugin classified (shown in the plan); the others are its own.
  virtual Plan& plan() = 0;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string name() const = 0;
};

// Evicts pods that break this plugin's rule, node by node (RemoveDuplicates, PodLifeTime, ...).
class DeschedulePlugin : public virtual Plugin {
 public:
  // nodes: Cluster::nodes indices the profile acts on (top-level nodeSelector applied).
  // An error is logged and the profile goes on, as upstream.
  virtual Status deschedule(const std::vector<int>& nodes, Handle& handle) = 0;
};

// Moves pods across nodes (LowNodeUtilization, LoadAware, GangDefragment, ...).
class BalancePlugin : public virtual Plugin {
 public:
  virtual Status balance(const std::vector<int>& nodes, Handle& handle) = 0;
};

// One profile: its plugins, in the order the policy enables them, under its own evictor
// made from the profile's DefaultEvictor args (the runner runs every profile's Deschedule
// plugins before any profile's Balance plugins, as upstream).
struct Profile {
  std::string name;
  EvictorArgs evictor;
  std::optional<bool> node_fit;   // LoadAware's nodeFit, over evictor.node_fit
  std::vector<std::unique_ptr<DeschedulePlugin>> deschedule;
  std::vector<std::unique_ptr<BalancePlugin>> balance;
};

}  // namespace weft::descheduler::framework
