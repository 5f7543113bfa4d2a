// Mutable per-cycle state of the nodes: free resources in dense arrays, cached static
// filter results per pod signature, node scoring, and tentative placements that can be
// rolled back. Internal to the core.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/core/config.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

// Why a node is not feasible for a pod (counted per reason for messages).
enum class Reject : uint8_t { None, NotReady, Unschedulable, Taint, Affinity, Load, Resources };

struct StaticFilter {
  std::vector<uint8_t> reject;        // Reject per node (None, NotReady, Unschedulable, Taint, Affinity, Load)
  std::vector<int> taint_of;          // index into node taints of the first untolerated hard taint
  std::vector<double> static_score;   // tainttoleration + usage part of the score
  std::vector<int> feasible;          // nodes that pass, ascending
};

class ClusterState {
 public:
  ClusterState(const Snapshot& snapshot, const Config& config);

  int dims() const { return static_cast<int>(dim_names_.size()); }
  int node_count() const { return static_cast<int>(snap_.nodes.size()); }
  const std::string& dim_name(int d) const { return dim_names_[d]; }
  int dim_of(const std::string& resource) const;   // -1 when no node or pod has it

  // Dense request of a pod (cpu, memory, ..., plus one "pods" slot).
  const std::vector<int64_t>& request(int pod) const { return requests_[pod]; }
  int64_t free(int node, int d) const { return free_[static_cast<size_t>(node) * dim_names_.size() + d]; }
  int64_t allocatable(int node, int d) const { return alloc_[static_cast<size_t>(node) * dim_names_.size() + d]; }

  const StaticFilter& filter_for(int pod);
  bool fits(int pod, int node) const;
  // How many pods like `pod` still fit on `node` by resources (ignores static filters).
  int64_t slots(int pod, int node) const;
  double score(int pod, int node, const StaticFilter& f) const;

  // Best feasible node for the pod among `candidates` (nullptr: all nodes); -1 when none.
  // Rejections are counted into `reasons` when given.
  int best_node(int pod, const std::vector<int>* candidates, std::map<std::string, int>* reasons);

  void assume(int pod, int node);   // take the pod's request from the node
  void release(int pod, int node);  // give it back

  const Snapshot& snapshot() const { return snap_; }
  std::string reject_message(Reject r, int node, const StaticFilter& f, int pod) const;
  bool load_fresh(const NodeInfo& n) const;

 private:
  StaticFilter compute_filter(int pod) const;

  const Snapshot& snap_;
  const Config& config_;
  std::vector<std::string> dim_names_;
  int cpu_ = -1, memory_ = -1, pods_ = -1;
  std::vector<int64_t> free_, alloc_;
  std::vector<std::vector<int64_t>> requests_;
  std::vector<std::vector<std::pair<int, int64_t>>> sparse_;   // nonzero dims per pod
  std::unordered_map<std::string, StaticFilter> filters_;
  std::vector<std::pair<int, double>> binpack_dims_;   // (dimension, weight)
  bool binpack_, nodeorder_, usage_, predicates_;
};

// "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {a: b}."
std::string format_reasons(int nodes, const std::map<std::string, int>& reasons);

}  // namespace weft::scheduler
