// DefaultEvictor: a profile's evictor, owning every eviction rule (docs/descheduler.md,
// "The evictor"). Its Filter holds the upstream DefaultEvictor's per-pod rules with the
// profile's args; its PreEvictionFilter the rules that depend on what the cycle already
// evicted, kept in the cycle's ledger (framework/ledger.h) that every profile's evictor
// shares: the maxNoOfPodsToEvict* limits, cooldown, a gang's minMember,
// PodDisruptionBudgets; the target must be in the pod's fabric or tier domain and, with
// the profile's nodeFit, take the pod with this cycle's moves counted.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "descheduler/core/framework/ledger.h"
#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/topology.h"
#include "kube/priority.h"
#include "scheduler/core/query/fit.h"

namespace weft::descheduler::framework {

inline constexpr int32_t kSystemCriticalPriority = kube::kSystemClusterCriticalPriority;

// What an evictor alone needs beyond its args: the ledger's options and its nodeFit.
struct EvictorOptions : LedgerOptions {
  bool node_fit = false;
};

// The options the policy (its limits) and one of its profiles (its nodeFit) give at `now`.
EvictorOptions evictor_options(const Policy& policy, const PolicyProfile& profile, TimePoint now, Seconds cooldown);

// evictableNamespaces (a plugin's arg, applied before the evictor's Filter as upstream):
// include, if any, lists the only namespaces; exclude those never.
bool namespace_allowed(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
                       const std::string& ns);

class DefaultEvictor final : public Evictor {
 public:
  // Resolves priorityThreshold.name against the cluster's PriorityClasses (and the two
  // built-in system classes); an unknown name is an error naming it. A profile's evictor
  // in a cycle of profiles: the ledger must outlive it.
  static Result<std::unique_ptr<DefaultEvictor>> create(const EvictorArgs& args, bool node_fit, CycleLedger& ledger);
  // An evictor alone in its cycle, with a ledger of its own. The cluster, state and plan
  // must outlive it; allowed evictions are appended to plan.evictions, refusals of
  // evict() to plan.skipped.
  static Result<std::unique_ptr<DefaultEvictor>> create(const EvictorArgs& args, const Cluster& cluster,
                                                        const DeschedulerState& state, const EvictorOptions& options,
                                                        Plan& plan);

  std::string filter(int pod) const override;
  std::string pre_eviction_filter(int pod, int target = -1) const override;
  std::string listing_filter(int pod) const override;
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
  DefaultEvictor(const EvictorArgs& args, bool node_fit, std::unique_ptr<CycleLedger> own, CycleLedger& ledger);
  std::string rule_blocker(const PodInfo& pod) const;   // the rules the evict annotation lifts
  std::string standing_blocker(int pod) const;          // evicted, namespaceLabelSelector
  bool pvc_protected(const PodInfo& pod) const;
  // The scheduler's fit of pod on node (Cluster indices), with or without the room.
  std::string fit_reason(int pod, int node, bool room) const;
  const DomainRule& domain_of(int pod) const;
  std::string any_target(int pod) const;

  const EvictorArgs args_;
  const bool node_fit_;
  const std::unique_ptr<CycleLedger> own_ledger_;   // alone: its own; in a cycle: none
  CycleLedger& ledger_;
  const Cluster& cluster_;
  int32_t threshold_ = kSystemCriticalPriority;
  mutable int domain_pod_ = -1;    // the pod domain_ was computed for
  mutable DomainRule domain_;
};

}  // namespace weft::descheduler::framework
