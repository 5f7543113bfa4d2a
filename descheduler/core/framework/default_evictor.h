// DefaultEvictor: the one evictor of a cycle, owning every eviction rule (docs/descheduler.md,
// "The evictor"). Its Filter holds the upstream DefaultEvictor's per-pod rules; its
// PreEvictionFilter the rules that depend on what the cycle already evicted: the
// maxNoOfPodsToEvict* limits, cooldown, a gang's minMember, PodDisruptionBudgets; the
// target must be in the pod's fabric or tier domain and, with nodeFit, take the pod with
// this cycle's moves counted. Every allowed eviction is recorded in the plan.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/topology.h"
#include "kube/priority.h"
#include "scheduler/core/query/fit.h"

namespace weft::descheduler::framework {

inline constexpr int32_t kSystemCriticalPriority = kube::kSystemClusterCriticalPriority;

// What the evictor needs beyond its args: the clock, the cooldown, the policy's limits.
struct EvictorOptions {
  TimePoint now;
  Seconds cooldown{600};
  bool node_fit = false;
  std::optional<int> max_per_node, max_per_namespace, max_total;
};

// The options a policy gives (its limits and nodeFit) at `now`.
EvictorOptions evictor_options(const Policy& policy, TimePoint now, Seconds cooldown);

// evictableNamespaces (a plugin's arg, applied before the evictor's Filter as upstream):
// include, if any, lists the only namespaces; exclude those never.
bool namespace_allowed(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
                       const std::string& ns);

class DefaultEvictor final : public Evictor {
 public:
  // Resolves priorityThreshold.name against the cluster's PriorityClasses (and the two
  // built-in system classes); an unknown name is an error naming it. The cluster, state
  // and plan must outlive the evictor; allowed evictions are appended to plan.evictions,
  // refusals of evict() to plan.skipped.
  static Result<std::unique_ptr<DefaultEvictor>> create(const EvictorArgs& args, const Cluster& cluster,
                                                        const DeschedulerState& state, const EvictorOptions& options,
                                                        Plan& plan);

  std::string filter(int pod) const override;
  std::string pre_eviction_filter(int pod, int target = -1) const override;
  std::string target_blocker(int pod, int node) const override;
  std::string placement_blocker(int pod, int node) const override;
  std::string fit_blocker(int pod, int node) const override;
  std::vector<std::string> other_pod_blockers(int pod, int node) const override;
  std::string evict(const EvictionRequest& request) override;
  bool evicted(int pod) const override;
  bool node_limit_reached(int node) const override;
  bool total_limit_reached() const override;
  std::optional<int> total_left() const override;
  std::vector<int> overdrawn(const std::vector<int>& pods) const override;

 private:
  DefaultEvictor(const EvictorArgs& args, const Cluster& cluster, const DeschedulerState& state,
                 const EvictorOptions& options, Plan& plan);
  std::string rule_blocker(const PodInfo& pod) const;   // the rules the evict annotation lifts
  bool pvc_protected(const PodInfo& pod) const;
  std::string limit_blocker(const PodInfo& pod) const;
  std::string gang_blocker(const PodInfo& pod) const;
  std::string budget_blocker(const PodInfo& pod) const;
  bool cooling_down(const PodInfo& pod) const;
  // The scheduler's fit of pod on node (Cluster indices), with or without the room.
  std::string fit_reason(int pod, int node, bool room) const;
  scheduler::query::Fit& fit() const;   // built on first use, with this cycle's moves
  const DomainRule& domain_of(int pod) const;
  std::string any_target(int pod) const;
  void count(int pod, int target);

  const EvictorArgs args_;
  const Cluster& cluster_;
  const DeschedulerState& state_;
  const EvictorOptions options_;
  Plan& plan_;
  int32_t threshold_ = kSystemCriticalPriority;
  // This cycle's moves (snapshot pod, snapshot node or -1), replayed into the fit when it
  // is built; per budget what is left.
  std::vector<std::pair<int, int>> moves_;
  mutable std::unique_ptr<scheduler::query::Fit> fit_;
  std::vector<int> evicted_from_;  // per node
  std::vector<char> evicted_pod_;   // per pod
  std::unordered_map<std::string, int> evicted_in_namespace_;
  std::unordered_map<std::string, int> running_in_group_;
  std::vector<int> budget_left_;   // per Cluster::pdbs
  int evicted_ = 0;
  mutable int domain_pod_ = -1;    // the pod domain_ was computed for
  mutable DomainRule domain_;
};

}  // namespace weft::descheduler::framework
