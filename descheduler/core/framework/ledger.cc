#include "descheduler/core/framework/ledger.h"

#include <algorithm>
#include <map>

namespace weft::descheduler::framework {

CycleLedger::CycleLedger(const Cluster& cluster, const DeschedulerState& state, const LedgerOptions& options,
                         Plan& plan)
    : cluster_(cluster), state_(state), options_(options), plan_(plan) {
  evicted_from_.assign(cluster.nodes.size(), 0);
  evicted_pod_.assign(cluster.pods.size(), 0);
  running_in_group_ = cluster.running_in_group;
  for (const auto& pdb : cluster.pdbs) budget_left_.push_back(pdb.disruptions_allowed);
}

std::string CycleLedger::blocker(const PodInfo& pod) const {
  if (std::string b = limit_blocker(pod); !b.empty()) return b;
  if (cooling_down(pod)) return "cooldown";
  if (std::string b = gang_blocker(pod); !b.empty()) return b;
  return budget_blocker(pod);
}

std::string CycleLedger::limit_blocker(const PodInfo& pod) const {
  if (total_limit_reached()) return "limit-total";
  if (node_limit_reached(pod.node)) return "limit-per-node";
  if (options_.max_per_namespace) {
    auto it = evicted_in_namespace_.find(pod.ns);
    const int evicted_here = it == evicted_in_namespace_.end() ? 0 : it->second;
    if (evicted_here >= *options_.max_per_namespace) return "limit-per-namespace";   // a limit of 0 too
  }
  return "";
}

bool CycleLedger::cooling_down(const PodInfo& pod) const {
  auto it = state_.workload_moved_at.find(pod.workload());
  return it != state_.workload_moved_at.end() &&
         options_.now - it->second < std::chrono::duration_cast<TimePoint::duration>(options_.cooldown);
}

// The gang keeps minMember running pods after this eviction and every earlier one.
std::string CycleLedger::gang_blocker(const PodInfo& pod) const {
  if (pod.group.empty()) return "";
  std::string key = pod.ns + "/" + pod.group;
  auto g = cluster_.groups.find(key);
  if (g == cluster_.groups.end()) return "gang-podgroup-missing";
  auto r = running_in_group_.find(key);
  int running = r == running_in_group_.end() ? 0 : r->second;
  return running - 1 >= g->second.min_member ? "" : "gang-min-member";
}

// The Eviction API refuses a pod covered by more than one budget, and any eviction past a
// budget's disruptionsAllowed: the plan counts on neither.
std::string CycleLedger::budget_blocker(const PodInfo& pod) const {
  if (pod.pdbs.size() > 1) return "pdb-multiple";
  for (int b : pod.pdbs)
    if (budget_left_[static_cast<size_t>(b)] <= 0) return "pdb";
  return "";
}

scheduler::query::Fit& CycleLedger::fit() const {
  if (!fit_) {
    fit_ = fit_ahead_.valid() ? fit_ahead_.get() : std::make_unique<scheduler::query::Fit>(cluster_.snapshot);
    for (const auto& [pod, node] : moves_) fit_->place(pod, node);
  }
  return *fit_;
}

void CycleLedger::build_fit_ahead() {
  if (fit_ || fit_ahead_.valid()) return;
  // The fit only reads the snapshot, which no one changes during the cycle.
  fit_ahead_ = std::async(std::launch::async, [&snapshot = cluster_.snapshot] {
    return std::make_unique<scheduler::query::Fit>(snapshot);
  });
}

void CycleLedger::skip(int index, const std::string& reason) {
  const PodInfo& pod = cluster_.pods[static_cast<size_t>(index)];
  plan_.skipped.push_back({pod.ns, pod.name, cluster_.nodes[static_cast<size_t>(pod.node)].name, reason});
}

// Counts an allowed eviction: limits, budgets, the gang, and the pod's requests moved from
// its node to the target (so two moves never count the same free room).
void CycleLedger::record(const EvictionRequest& r) {
  const PodInfo& pod = cluster_.pods[static_cast<size_t>(r.pod)];
  ++evicted_;
  evicted_pod_[static_cast<size_t>(r.pod)] = 1;
  ++evicted_from_[static_cast<size_t>(pod.node)];
  ++evicted_in_namespace_[pod.ns];
  for (int b : pod.pdbs) --budget_left_[static_cast<size_t>(b)];
  if (!pod.group.empty()) --running_in_group_[pod.ns + "/" + pod.group];
  plan_.evictions.push_back({pod.ns, pod.name, cluster_.nodes[static_cast<size_t>(pod.node)].name,
                             r.target >= 0 ? cluster_.nodes[static_cast<size_t>(r.target)].name : "", r.reason,
                             pod.workload(), r.cpu, r.memory, r.sized_by, r.plugin});
  if (pod.core < 0) return;
  const int to = r.target < 0 ? -1 : cluster_.topology_node[static_cast<size_t>(r.target)];
  moves_.emplace_back(pod.core, to);
  if (fit_) fit_->place(pod.core, to);
}

bool CycleLedger::node_limit_reached(int node) const {
  return options_.max_per_node && evicted_from_[static_cast<size_t>(node)] >= *options_.max_per_node;
}

bool CycleLedger::total_limit_reached() const { return options_.max_total && evicted_ >= *options_.max_total; }

std::optional<int> CycleLedger::total_left() const {
  if (!options_.max_total) return std::nullopt;
  return std::max(0, *options_.max_total - evicted_);
}

std::vector<int> CycleLedger::overdrawn(const std::vector<int>& pods) const {
  // Budget keys: "p<index>" a PodDisruptionBudget, "g<ns/group>" a gang, "n<node>", "s<namespace>".
  std::map<std::string, int> use, left;
  auto draws = [&](int index, auto&& each) {
    const PodInfo& pod = cluster_.pods[static_cast<size_t>(index)];
    for (int b : pod.pdbs) each("p" + std::to_string(b), budget_left_[static_cast<size_t>(b)]);
    if (!pod.group.empty()) {
      std::string key = pod.ns + "/" + pod.group;
      auto g = cluster_.groups.find(key);
      auto r = running_in_group_.find(key);
      int spare = g == cluster_.groups.end() || r == running_in_group_.end() ? 0 : r->second - g->second.min_member;
      each("g" + key, spare);
    }
    if (options_.max_per_node)
      each("n" + std::to_string(pod.node), *options_.max_per_node - evicted_from_[static_cast<size_t>(pod.node)]);
    if (options_.max_per_namespace) {
      auto it = evicted_in_namespace_.find(pod.ns);
      each("s" + std::string(pod.ns), *options_.max_per_namespace - (it == evicted_in_namespace_.end() ? 0 : it->second));
    }
  };
  for (int p : pods)
    draws(p, [&](const std::string& key, int available) {
      ++use[key];
      left.try_emplace(key, available);
    });
  std::vector<int> out;
  for (int p : pods) {
    bool over = false;
    draws(p, [&](const std::string& key, int) { over |= use[key] > left[key]; });
    if (over) out.push_back(p);
  }
  return out;
}

}  // namespace weft::descheduler::framework
