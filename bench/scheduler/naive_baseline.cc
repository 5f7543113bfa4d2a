#include "bench/scheduler/naive_baseline.h"

#include <limits>

namespace weft::scheduler::bench {

NaiveScheduler::NaiveScheduler(const Snapshot& snap) : snap_(snap) {
  for (const auto& n : snap.nodes) free_.push_back(n.allocatable);
  for (const auto& p : snap.pods) {
    if (!p.bound()) continue;
    for (size_t i = 0; i < snap.nodes.size(); ++i)
      if (snap.nodes[i].name == p.node) {
        kube::subtract_from(free_[i], p.request);
        free_[i]["pods"] -= 1000;
      }
  }
}

bool NaiveScheduler::feasible(int pod, int node) const {
  const PodInfo& p = snap_.pods[pod];
  const NodeInfo& n = snap_.nodes[node];
  if (!n.ready || n.unschedulable) return false;
  if (kube::first_untolerated_hard_taint(n.taints, p.tolerations())) return false;
  if (!p.affinity().matches(n.name, n.labels)) return false;
  kube::ResourceList want = p.request;
  want["pods"] = 1000;
  return kube::fits(want, free_[node]);
}

double NaiveScheduler::score(int pod, int node) const {
  const PodInfo& p = snap_.pods[pod];
  const NodeInfo& n = snap_.nodes[node];
  double sum = 0;
  int count = 0;
  for (const char* r : {"cpu", "memory"}) {
    auto a = n.allocatable.find(r);
    auto want = p.request.find(r);
    if (a == n.allocatable.end() || a->second <= 0 || want == p.request.end()) continue;
    double used = static_cast<double>(a->second - free_[node].at(r) + want->second);
    sum += used / static_cast<double>(a->second);
    ++count;
  }
  return count ? 100.0 * sum / count : 0;
}

int NaiveScheduler::best_in(int pod, const std::vector<int>& nodes) const {
  int best = -1;
  double best_score = -1;
  for (int n : nodes) {
    if (!feasible(pod, n)) continue;
    double s = score(pod, n);
    if (s > best_score) best = n, best_score = s;
  }
  return best;
}

int NaiveScheduler::place_pod(int pod) {
  std::vector<int> all(snap_.nodes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  int n = best_in(pod, all);
  if (n >= 0) {
    kube::subtract_from(free_[n], snap_.pods[pod].request);
    free_[n]["pods"] -= 1000;
  }
  return n;
}

bool NaiveScheduler::place_gang(const std::vector<int>& pods, const Topology& topo, int highest_tier) {
  for (int tier = 1; tier <= highest_tier; ++tier) {
    const Domain* best = nullptr;
    double best_free = std::numeric_limits<double>::max();
    for (const auto& d : topo.domains) {
      if (d.tier != tier) continue;
      // Dry run: place every pod inside the domain, then roll back.
      std::vector<std::pair<int, int>> placed;
      for (int p : pods) {
        int n = best_in(p, d.nodes);
        if (n < 0) break;
        kube::subtract_from(free_[n], snap_.pods[p].request);
        free_[n]["pods"] -= 1000;
        placed.push_back({p, n});
      }
      bool fits = placed.size() == pods.size();
      double free_cpu = 0;
      for (int n : d.nodes) free_cpu += static_cast<double>(free_[n]["cpu"]);
      for (auto [p, n] : placed) {
        kube::add_to(free_[n], snap_.pods[p].request);
        free_[n]["pods"] += 1000;
      }
      if (fits && free_cpu < best_free) best = &d, best_free = free_cpu;
    }
    if (best) {
      for (int p : pods) {
        int n = best_in(p, best->nodes);
        kube::subtract_from(free_[n], snap_.pods[p].request);
        free_[n]["pods"] -= 1000;
      }
      return true;
    }
  }
  return false;
}

}  // namespace weft::scheduler::bench
