// The cycle's ledger: what every profile's DefaultEvictor shares in one cycle, as upstream's
// one PodEvictor counts the maxNoOfPodsToEvict* limits across profiles. weft's cross-plugin
// rules live here too, so they hold whichever profile asks: a pod is evicted once, the
// PodDisruptionBudgets' and gangs' room left, cooldown, and this cycle's moves (the fit
// counts them for nodeFit). Every allowed eviction is recorded in the plan.
#pragma once

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "scheduler/core/query/fit.h"

namespace weft::descheduler::framework {

// The cycle's clock, cooldown and the policy's eviction limits.
struct LedgerOptions {
  TimePoint now;
  Seconds cooldown{600};
  std::optional<int> max_per_node, max_per_namespace, max_total;
};

class CycleLedger {
 public:
  // The cluster, state and plan must outlive the ledger.
  CycleLedger(const Cluster& cluster, const DeschedulerState& state, const LedgerOptions& options, Plan& plan);

  const Cluster& cluster() const { return cluster_; }
  TimePoint now() const { return options_.now; }

  bool evicted(int pod) const { return evicted_pod_[static_cast<size_t>(pod)] != 0; }
  bool node_limit_reached(int node) const;
  bool total_limit_reached() const;
  std::optional<int> total_left() const;
  // The first cycle-wide rule the pod's eviction would break now ("" none): limits,
  // cooldown, the gang's minMember, the PodDisruptionBudgets.
  std::string blocker(const PodInfo& pod) const;
  // The pods of `pods` that draw on a budget the whole set would overdraw (Evictor::overdrawn).
  std::vector<int> overdrawn(const std::vector<int>& pods) const;
  // The scheduler's fit with this cycle's moves placed, built on first use.
  scheduler::query::Fit& fit() const;
  // Starts building the fit on another thread, for a cycle that will ask it (an evictor
  // with nodeFit asks it of every candidate): fit() takes it from there.
  void build_fit_ahead();

  void skip(int pod, const std::string& reason);
  // Counts an allowed eviction (limits, budgets, the gang, the pod's move) and plans it.
  void record(const EvictionRequest& request);

 private:
  std::string limit_blocker(const PodInfo& pod) const;
  std::string gang_blocker(const PodInfo& pod) const;
  std::string budget_blocker(const PodInfo& pod) const;
  bool cooling_down(const PodInfo& pod) const;

  const Cluster& cluster_;
  const DeschedulerState& state_;
  const LedgerOptions options_;
  Plan& plan_;
  // This cycle's moves (snapshot pod, snapshot node or -1), replayed into the fit when it
  // is built; per budget what is left.
  std::vector<std::pair<int, int>> moves_;
  mutable std::unique_ptr<scheduler::query::Fit> fit_;
  mutable std::future<std::unique_ptr<scheduler::query::Fit>> fit_ahead_;   // waited for by fit() or the destructor
  std::vector<int> evicted_from_;  // per node
  std::vector<char> evicted_pod_;   // per pod
  std::unordered_map<std::string, int> evicted_in_namespace_;
  std::unordered_map<std::string, int> running_in_group_;
  std::vector<int> budget_left_;   // per Cluster::pdbs
  int evicted_ = 0;
};

}  // namespace weft::descheduler::framework
