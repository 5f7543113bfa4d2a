#include "scheduler/core/cluster_state.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace weft::scheduler {
namespace {

constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max() / 4;

}  // namespace

ClusterState::ClusterState(const Snapshot& snap, const Config& config) : snap_(snap), config_(config) {
  binpack_ = config.has("binpack");
  nodeorder_ = config.has("nodeorder");
  usage_ = config.has("usage");
  predicates_ = config.has("predicates");
  std::set<std::string> names{"cpu", "memory", "pods"};
  for (const auto& n : snap.nodes)
    for (const auto& [k, v] : n.allocatable) names.insert(k);
  for (const auto& p : snap.pods)
    for (const auto& [k, v] : p.request) names.insert(k);
  dim_names_.assign(names.begin(), names.end());
  cpu_ = dim_of("cpu");
  memory_ = dim_of("memory");
  pods_ = dim_of("pods");
  const size_t D = dim_names_.size();
  alloc_.assign(snap.nodes.size() * D, 0);
  for (size_t i = 0; i < snap.nodes.size(); ++i) {
    for (const auto& [k, v] : snap.nodes[i].allocatable) alloc_[i * D + dim_of(k)] = v;
    if (!snap.nodes[i].allocatable.count("pods")) alloc_[i * D + pods_] = kUnlimited;
  }
  free_ = alloc_;
  for (const auto& [name, w] : config.binpack.resources)
    if (int d = dim_of(name); d >= 0 && w > 0) binpack_dims_.push_back({d, w});
  requests_.resize(snap.pods.size());
  sparse_.resize(snap.pods.size());
  std::map<std::string, int> node_index;
  for (size_t i = 0; i < snap.nodes.size(); ++i) node_index[snap.nodes[i].name] = static_cast<int>(i);
  for (size_t p = 0; p < snap.pods.size(); ++p) {
    auto& r = requests_[p];
    r.assign(D, 0);
    for (const auto& [k, v] : snap.pods[p].request)
      if (k != "pods") r[dim_of(k)] = v;
    r[pods_] = 1000;
    for (size_t d = 0; d < D; ++d)
      if (r[d] > 0) sparse_[p].push_back({static_cast<int>(d), r[d]});
    if (snap.pods[p].bound())
      if (auto it = node_index.find(snap.pods[p].node); it != node_index.end()) assume(static_cast<int>(p), it->second);
  }
}

int ClusterState::dim_of(const std::string& resource) const {
  auto it = std::lower_bound(dim_names_.begin(), dim_names_.end(), resource);
  return it != dim_names_.end() && *it == resource ? static_cast<int>(it - dim_names_.begin()) : -1;
}

bool ClusterState::load_fresh(const NodeInfo& n) const {
  if (!n.load || !n.load->at) return false;
  double max_age = config_.usage.max_age_s > 0 ? config_.usage.max_age_s : 2 * std::max(n.load->window_s, 1.0);
  double age = std::chrono::duration<double>(snap_.now - *n.load->at).count();
  // A report from further in the future than it may be old is a clock gone wrong.
  return age <= max_age && age >= -max_age;
}

StaticFilter ClusterState::compute_filter(int pod) const {
  const PodInfo& p = snap_.pods[pod];
  StaticFilter f;
  const size_t N = snap_.nodes.size();
  f.reject.assign(N, 0);
  f.taint_of.assign(N, -1);
  f.static_score.assign(N, 0);
  for (size_t i = 0; i < N; ++i) {
    const NodeInfo& n = snap_.nodes[i];
    Reject r = Reject::None;
    if (predicates_) {
      if (!n.ready) r = Reject::NotReady;
      else if (n.unschedulable) r = Reject::Unschedulable;
      else {
        for (size_t t = 0; t < n.taints.size(); ++t) {
          const auto& taint = n.taints[t];
          if ((taint.effect == "NoSchedule" || taint.effect == "NoExecute") && !kube::tolerated(p.tolerations, taint)) {
            r = Reject::Taint;
            f.taint_of[i] = static_cast<int>(t);
            break;
          }
        }
        if (r == Reject::None && !p.affinity.empty() && !p.affinity.matches(n.name, n.labels)) r = Reject::Affinity;
      }
    }
    bool fresh = usage_ && load_fresh(n);
    if (r == Reject::None && fresh) {
      if ((config_.usage.cpu_threshold && n.load->cpu * 100 > *config_.usage.cpu_threshold) ||
          (config_.usage.memory_threshold && n.load->memory * 100 > *config_.usage.memory_threshold))
        r = Reject::Load;
    }
    f.reject[i] = static_cast<uint8_t>(r);
    if (r != Reject::None) continue;
    f.feasible.push_back(static_cast<int>(i));
    double s = 0;
    if (nodeorder_ && config_.nodeorder.taint_toleration != 0) {
      int untolerated = 0;
      for (const auto& taint : n.taints)
        if (taint.effect == "PreferNoSchedule" && !kube::tolerated(p.tolerations, taint)) ++untolerated;
      s += config_.nodeorder.taint_toleration * 100.0 / (1 + untolerated);
    }
    if (usage_) {
      double cw = config_.usage.cpu_weight, mw = config_.usage.memory_weight;
      double idle = 0.5;   // a node without a fresh load report counts as half loaded
      if (fresh && cw + mw > 0) idle = ((1 - n.load->cpu) * cw + (1 - n.load->memory) * mw) / (cw + mw);
      s += config_.usage.weight * 100.0 * std::clamp(idle, 0.0, 1.0);
    }
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

bool ClusterState::fits(int pod, int node) const {
  const int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
  for (const auto& [d, v] : sparse_[pod])
    if (fr[d] < v) return false;
  return true;
}

int64_t ClusterState::slots(int pod, int node) const {
  const int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
  int64_t best = kUnlimited;
  for (const auto& [d, v] : sparse_[pod]) best = std::min(best, fr[d] < 0 ? 0 : fr[d] / v);
  return best;
}

double ClusterState::score(int pod, int node, const StaticFilter& f) const {
  double s = f.static_score[node];
  const size_t base = static_cast<size_t>(node) * dim_names_.size();
  const auto& req = requests_[pod];
  auto used_frac = [&](int d) -> double {
    int64_t a = alloc_[base + d];
    if (a <= 0) return 1;
    return static_cast<double>(a - free_[base + d] + req[d]) / static_cast<double>(a);
  };
  if (binpack_ && config_.binpack.weight != 0) {
    double sum = 0, weights = 0;
    for (const auto& [d, w] : binpack_dims_) {
      if (req[d] == 0) continue;
      sum += w * std::min(used_frac(d), 1.0);
      weights += w;
    }
    if (weights > 0) s += config_.binpack.weight * 100.0 * sum / weights;
  }
  if (nodeorder_) {
    double cpu = std::min(used_frac(cpu_), 1.0), mem = std::min(used_frac(memory_), 1.0);
    const auto& no = config_.nodeorder;
    s += no.least_requested * 100.0 * ((1 - cpu) + (1 - mem)) / 2;
    s += no.most_requested * 100.0 * (cpu + mem) / 2;
    s += no.balanced_resource * 100.0 * (1 - std::fabs(cpu - mem));
  }
  return s;
}

int ClusterState::best_node(int pod, const std::vector<int>* candidates, std::map<std::string, int>* reasons) {
  const StaticFilter& f = filter_for(pod);
  int best = -1;
  double best_score = 0;
  auto consider = [&](int n) {
    if (!fits(pod, n)) {
      if (reasons) ++(*reasons)[reject_message(Reject::Resources, n, f, pod)];
      return;
    }
    double s = score(pod, n, f);
    if (best < 0 || s > best_score || (s == best_score && n < best)) best = n, best_score = s;
  };
  if (!candidates) {
    for (int n : f.feasible) consider(n);
    if (reasons)
      for (size_t n = 0; n < f.reject.size(); ++n)
        if (f.reject[n]) ++(*reasons)[reject_message(static_cast<Reject>(f.reject[n]), static_cast<int>(n), f, pod)];
  } else {
    for (int n : *candidates) {
      if (f.reject[n]) {
        if (reasons) ++(*reasons)[reject_message(static_cast<Reject>(f.reject[n]), n, f, pod)];
        continue;
      }
      consider(n);
    }
  }
  return best;
}

void ClusterState::assume(int pod, int node) {
  int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
  for (const auto& [d, v] : sparse_[pod]) fr[d] -= v;
}

void ClusterState::release(int pod, int node) {
  int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
  for (const auto& [d, v] : sparse_[pod]) fr[d] += v;
}

std::string ClusterState::reject_message(Reject r, int node, const StaticFilter& f, int pod) const {
  const NodeInfo& n = snap_.nodes[node];
  switch (r) {
    case Reject::None: return "";
    case Reject::NotReady: return "node(s) were not ready";
    case Reject::Unschedulable: return "node(s) were unschedulable";
    case Reject::Affinity: return "node(s) didn't match Pod's node affinity/selector";
    case Reject::Load: return "node(s) had load above the usage thresholds";
    case Reject::Taint: {
      const auto& t = n.taints[f.taint_of[node]];
      return "node(s) had untolerated taint {" + t.key + ": " + t.value + "}";
    }
    case Reject::Resources: {
      const int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
      for (const auto& [d, v] : sparse_[pod])
        if (fr[d] < v) return d == pods_ ? "Too many pods" : "Insufficient " + dim_names_[d];
      return "Insufficient resources";
    }
  }
  return "";
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
