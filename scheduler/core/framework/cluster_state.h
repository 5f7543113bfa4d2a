// Mutable per-cycle state of the nodes: free resources in dense arrays, cached static
// filter results per pod signature, node scoring, and tentative placements that can be
// rolled back. Internal to the core.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/core/framework/placed_pods.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

// Node callbacks the plugins register (see Session): static ones are evaluated once per
// pod signature (taints, selector, affinity are equal for pods with equal signatures) and
// node; batch scorers see the current free resources.
using PredicateFn = std::function<std::string(int pod, int node)>;   // "" passes, else why not
using StaticScoreFn = std::function<double(int pod, int node)>;
using BatchScoreFn = std::function<void(int pod, const std::vector<int>& nodes, std::vector<double>& scores)>;

struct NodeCallbacks {
  std::vector<PredicateFn> predicates;
  // Checks that depend on where other pods are, tentative placements of this cycle
  // included (inter-pod affinity, topology spread, host ports): run after the resource
  // fit, on every check. Registered only when some pod of the snapshot needs them.
  std::vector<PredicateFn> dynamic_predicates;
  std::vector<StaticScoreFn> static_scores;
  std::vector<BatchScoreFn> batch_scores;
};

struct StaticFilter {
  std::vector<uint16_t> reject;       // per node: 0 passes, else an index into ClusterState's reasons
  std::vector<double> static_score;   // the static part of the score
  std::vector<int> feasible;          // nodes that pass, ascending
};

class ClusterState {
 public:
  ClusterState(const Snapshot& snapshot, const NodeCallbacks& callbacks);

  int dims() const { return static_cast<int>(dim_names_.size()); }
  int node_count() const { return static_cast<int>(snap_.nodes.size()); }
  const std::string& dim_name(int d) const { return dim_names_[d]; }
  int dim_of(const std::string& resource) const;   // -1 when no node or pod has it

  // Dense request of a pod (cpu, memory, ..., plus one "pods" slot).
  std::span<const int64_t> request(int pod) const {
    return {requests_.data() + static_cast<size_t>(pod) * dim_names_.size(), dim_names_.size()};
  }
  int64_t free(int node, int d) const { return free_[static_cast<size_t>(node) * dim_names_.size() + d]; }
  int64_t allocatable(int node, int d) const { return alloc_[static_cast<size_t>(node) * dim_names_.size() + d]; }

  const StaticFilter& filter_for(int pod);
  bool fits(int pod, int node) const {
    const int64_t* fr = &free_[static_cast<size_t>(node) * dim_names_.size()];
    for (const auto& [d, v] : sparse_request(pod))
      if (fr[d] < v) return false;
    return true;
  }
  // Whether the dynamic predicates pass; the first one's reason when not ("" passes).
  std::string dynamic_reject(int pod, int node) const {
    for (const auto& predicate : callbacks_.dynamic_predicates)
      if (std::string why = predicate(pod, node); !why.empty()) return why;
    return "";
  }
  bool has_dynamic_predicates() const { return !callbacks_.dynamic_predicates.empty(); }
  // Resources and the dynamic predicates.
  bool fits_now(int pod, int node) const {
    return fits(pod, node) && (callbacks_.dynamic_predicates.empty() || dynamic_reject(pod, node).empty());
  }
  // How many pods like `pod` still fit on `node` by resources (ignores static filters).
  int64_t slots(int pod, int node) const;
  // Used fraction of a resource on the node were the pod placed there (1 when the node has none).
  double used_fraction(int pod, int node, int d) const {
    const size_t base = static_cast<size_t>(node) * dim_names_.size();
    int64_t a = alloc_[base + d];
    if (a <= 0) return 1;
    return static_cast<double>(a - free_[base + d] + request(pod)[d]) / static_cast<double>(a);
  }
  // The pod's nonzero dimensions and their requests.
  std::span<const std::pair<int, int64_t>> sparse_request(int pod) const {
    const uint32_t begin = sparse_begin_[static_cast<size_t>(pod)];
    return {sparse_.data() + begin, sparse_begin_[static_cast<size_t>(pod) + 1] - begin};
  }

  // Best feasible node for the pod among `candidates` (nullptr: all nodes); -1 when none.
  // Rejections are counted into `reasons` when given.
  int best_node(int pod, const std::vector<int>* candidates, std::map<std::string, int>* reasons);

  void assume(int pod, int node);   // take the pod's request from the node
  void release(int pod, int node);  // give it back

  const Snapshot& snapshot() const { return snap_; }
  PlacedPods& placed() { return placed_; }
  const std::string& reason(uint16_t r) const { return reasons_[r]; }
  std::string resources_message(int pod, int node) const;

 private:
  StaticFilter compute_filter(int pod);

  const Snapshot& snap_;
  const NodeCallbacks& callbacks_;
  PlacedPods placed_;
  std::vector<std::string> dim_names_;
  int pods_ = -1;
  std::vector<int64_t> free_, alloc_;
  // Per pod, flat: its dense request at pod * dims(), its nonzero dimensions at
  // sparse_[sparse_begin_[pod]..sparse_begin_[pod + 1]) (one allocation each, not two per pod).
  std::vector<int64_t> requests_;
  std::vector<std::pair<int, int64_t>> sparse_;
  std::vector<uint32_t> sparse_begin_;
  std::unordered_map<std::string, StaticFilter> filters_;
  std::vector<std::string> reasons_{""};
  std::unordered_map<std::string, uint16_t> reason_index_;
  std::vector<int> fitting_;       // scratch for best_node
  std::vector<double> scores_;
};

// "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {a: b}."
std::string format_reasons(int nodes, const std::map<std::string, int>& reasons);

}  // namespace weft::scheduler
