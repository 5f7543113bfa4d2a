// Naive baselines the way per-pod schedulers work: every pod runs the full predicates
// (object-level resource maps, taints, affinity) on every node; topology jobs are
// dry-run on every HyperNode of a tier before one is chosen.
#pragma once

#include <vector>

#include "scheduler/core/snapshot.h"
#include "scheduler/core/topology.h"

namespace weft::scheduler::bench {

class NaiveScheduler {
 public:
  explicit NaiveScheduler(const Snapshot& snap);
  // Places one pod on the best-scoring feasible node; -1 when none.
  int place_pod(int pod);
  // Places a gang in the lowest tier / best-fit domain by dry-running every domain; false when none fits.
  bool place_gang(const std::vector<int>& pods, const Topology& topo, int highest_tier);

 private:
  bool feasible(int pod, int node) const;
  double score(int pod, int node) const;
  int best_in(int pod, const std::vector<int>& nodes) const;

  const Snapshot& snap_;
  std::vector<kube::ResourceList> free_;
};

}  // namespace weft::scheduler::bench
