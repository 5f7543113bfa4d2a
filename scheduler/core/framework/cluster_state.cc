#include "scheduler/core/framework/cluster_state.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace weft::scheduler {
namespace {

constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max() / 4;

}  // namespace

ClusterState::ClusterState(const Snapshot& snap, const NodeCallbacks& callbacks)
    : snap_(snap), callbacks_(callbacks), placed_(snap) {
  // The resources named anywhere, sorted. They are few and every pod names the same ones:
  // each pod's request is walked once, its names found by a scan of those met so far, its
  // amounts kept in one flat list by the order met; the names are sorted after.
  std::vector<std::string_view> met{"cpu", "memory", "pods"};
  constexpr uint32_t kPodsMet = 2;
  auto met_as = [&](std::string_view name) {
    const auto it = std::find(met.begin(), met.end(), name);
    if (it != met.end()) return static_cast<uint32_t>(it - met.begin());
    met.push_back(name);
    return static_cast<uint32_t>(met.size() - 1);
  };
  for (const auto& n : snap.nodes)
    for (const auto& [k, v] : n.allocatable) (void)met_as(k);
  std::vector<std::pair<uint32_t, int64_t>> asked;   // pod after pod: (name met, amount)
  std::vector<uint32_t> asked_begin;
  asked.reserve(snap.pods.size() * 2);
  asked_begin.reserve(snap.pods.size() + 1);
  for (const auto& p : snap.pods) {
    asked_begin.push_back(static_cast<uint32_t>(asked.size()));
    for (const auto& [k, v] : p.request)
      if (const uint32_t m = met_as(k); m != kPodsMet) asked.emplace_back(m, v);
  }
  asked_begin.push_back(static_cast<uint32_t>(asked.size()));
  std::vector<uint32_t> sorted(met.size());
  for (uint32_t m = 0; m < met.size(); ++m) sorted[m] = m;
  std::sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) { return met[a] < met[b]; });
  std::vector<size_t> dim_met(met.size());   // per name met, its dimension
  for (size_t d = 0; d < sorted.size(); ++d) {
    dim_names_.emplace_back(met[sorted[d]]);
    dim_met[sorted[d]] = d;
  }
  pods_ = static_cast<int>(dim_met[kPodsMet]);
  const size_t D = dim_names_.size();
  alloc_.assign(snap.nodes.size() * D, 0);
  for (size_t i = 0; i < snap.nodes.size(); ++i) {
    for (const auto& [k, v] : snap.nodes[i].allocatable) alloc_[i * D + dim_of(k)] = v;
    if (!snap.nodes[i].allocatable.count("pods")) alloc_[i * D + pods_] = kUnlimited;
  }
  free_ = alloc_;
  requests_.assign(snap.pods.size() * D, 0);
  sparse_.reserve(snap.pods.size() * 3);   // most pods ask cpu and memory, and take a pod slot
  sparse_begin_.reserve(snap.pods.size() + 1);
  for (size_t p = 0; p < snap.pods.size(); ++p) {
    int64_t* r = &requests_[p * D];
    for (uint32_t a = asked_begin[p]; a < asked_begin[p + 1]; ++a) r[dim_met[asked[a].first]] = asked[a].second;
    r[pods_] = 1000;
    sparse_begin_.push_back(static_cast<uint32_t>(sparse_.size()));
    for (size_t d = 0; d < D; ++d)
      if (r[d] > 0) sparse_.push_back({static_cast<int>(d), r[d]});
  }
  sparse_begin_.push_back(static_cast<uint32_t>(sparse_.size()));
  std::unordered_map<std::string_view, int> node_index;
  node_index.reserve(snap.nodes.size());
  for (size_t i = 0; i < snap.nodes.size(); ++i) node_index.emplace(snap.nodes[i].name, static_cast<int>(i));
  for (size_t p = 0; p < snap.pods.size(); ++p)
    if (snap.pods[p].bound())
      if (auto it = node_index.find(snap.pods[p].node.view()); it != node_index.end()) assume(static_cast<int>(p), it->second);
}

int ClusterState::dim_of(const std::string& resource) const {
  auto it = std::lower_bound(dim_names_.begin(), dim_names_.end(), resource);
  return it != dim_names_.end() && *it == resource ? static_cast<int>(it - dim_names_.begin()) : -1;
}

StaticFilter ClusterState::compute_filter(int pod) {
  StaticFilter f;
  const size_t N = snap_.nodes.size();
  f.reject.assign(N, 0);
  f.static_score.assign(N, 0);
  for (size_t i = 0; i < N; ++i) {
    const int n = static_cast<int>(i);
    for (const auto& predicate : callbacks_.predicates) {
      std::string why = predicate(pod, n);
      if (why.empty()) continue;
      auto [it, inserted] = reason_index_.try_emplace(why, static_cast<uint16_t>(reasons_.size()));
      if (inserted) reasons_.push_back(why);
      f.reject[i] = it->second;
      break;
    }
    if (f.reject[i]) continue;
    f.feasible.push_back(n);
    double s = 0;
    for (const auto& score : callbacks_.static_scores) s += score(pod, n);
    f.static_score[i] = s;
  }
  return f;
}

const StaticFilter& ClusterState::filter_for(int pod) {
  const std::string& sig = snap_.pods[pod].filter_signature;
  auto it = filters_.find(sig);
  if (it == filters_.end()) it = filters_.emplace(sig, compute_filter(pod)).first;
  return it->second;
}

int64_t ClusterState::slots(int pod, int node) const {
  const int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
  int64_t best = kUnlimited;
  for (const auto& [d, v] : sparse_request(pod)) best = std::min(best, fr[d] < 0 ? 0 : fr[d] / v);
  return best;
}

int ClusterState::best_node(int pod, const std::vector<int>* candidates, std::map<std::string, int>* reasons) {
  const StaticFilter& f = filter_for(pod);
  fitting_.clear();
  const bool dynamic = !callbacks_.dynamic_predicates.empty();
  auto consider = [&](int n) {
    if (!fits(pod, n)) {
      if (reasons) ++(*reasons)[resources_message(pod, n)];
    } else if (!dynamic) {
      fitting_.push_back(n);
    } else if (std::string why = dynamic_reject(pod, n); why.empty()) {
      fitting_.push_back(n);
    } else if (reasons) {
      ++(*reasons)[why];
    }
  };
  if (!candidates && !reasons && !dynamic) {
    fitting_.reserve(f.feasible.size());
    for (int n : f.feasible)
      if (fits(pod, n)) fitting_.push_back(n);
  } else if (!candidates) {
    for (int n : f.feasible) consider(n);
    if (reasons)
      for (size_t n = 0; n < f.reject.size(); ++n)
        if (f.reject[n]) ++(*reasons)[reasons_[f.reject[n]]];
  } else {
    for (int n : *candidates) {
      if (f.reject[n]) {
        if (reasons) ++(*reasons)[reasons_[f.reject[n]]];
        continue;
      }
      consider(n);
    }
  }
  if (fitting_.empty()) return -1;
  scores_.resize(fitting_.size());
  for (size_t i = 0; i < fitting_.size(); ++i) scores_[i] = f.static_score[fitting_[i]];
  for (const auto& score : callbacks_.batch_scores) score(pod, fitting_, scores_);
  size_t best = 0;
  for (size_t i = 1; i < fitting_.size(); ++i)
    if (scores_[i] > scores_[best] || (scores_[i] == scores_[best] && fitting_[i] < fitting_[best])) best = i;
  return fitting_[best];
}

void ClusterState::assume(int pod, int node) {
  int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
  for (const auto& [d, v] : sparse_request(pod)) fr[d] -= v;
  placed_.add(pod, node);
}

void ClusterState::release(int pod, int node) {
  int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
  for (const auto& [d, v] : sparse_request(pod)) fr[d] += v;
  placed_.remove(pod, node);
}

std::string ClusterState::resources_message(int pod, int node) const {
  const int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
  for (const auto& [d, v] : sparse_request(pod))
    if (fr[d] < v) return d == pods_ ? "Too many pods" : "Insufficient " + dim_names_[d];
  return "Insufficient resources";
}

std::string format_reasons(int nodes, const std::map<std::string, int>& reasons) {
  std::vector<std::pair<std::string, int>> items(reasons.begin(), reasons.end());
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::string out = "0/" + std::to_string(nodes) + " nodes are available";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? ": " : ", ") + std::to_string(items[i].second) + " " + items[i].first;
  return out + ".";
}

}  // namespace weft::scheduler
