// "Could this pod run on that node?" asked of the scheduler itself: the descheduler's
// nodeFit and GangDefragment's room count go through the same filters the scheduler's
// predicates, nodeports, interpodaffinity, podtopologyspread and volumes plugins register
// (every switch at Volcano's default, on), and its resource accounting — never a copy.
//
// The pod is asked about as if taken off the node it is on now: its own requests, host
// ports, volumes and labels no longer count there, so a pod never blocks its own move.
// Moves the caller plans (place) are kept: later questions see them, as the scheduler
// sees the pods it placed earlier in a cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scheduler/core/snapshot.h"

namespace weft::scheduler {
class Session;
struct Config;
struct SessionOptions;
}  // namespace weft::scheduler

namespace weft::scheduler::query {

class Fit {
 public:
  // The snapshot must outlive the Fit; indices are the snapshot's.
  explicit Fit(const Snapshot& snapshot);
  ~Fit();
  Fit(const Fit&) = delete;
  Fit& operator=(const Fit&) = delete;

  // "" when the pod could run on the node, else the first reason the scheduler would give
  // (its own words: "node(s) had untolerated taint {k: v}", "Insufficient cpu", ...).
  std::string reject(int pod, int node);
  // The same without the resources, for callers that count room themselves.
  std::string reject_placement(int pod, int node);
  // Each filter that counts other pods (host ports, inter-pod (anti-)affinity, topology
  // spread, volumes) with its first reason, the pod on `node` and off its own node.
  std::vector<std::string> other_pod_rejects(int pod, int node);

  // Where the pod is now (-1: on no node), and a planned move (node -1: off every node).
  int node_of(int pod) const;
  void place(int pod, int node);
  // Some pod carries an inter-pod term, a spread constraint, a host port or a volume: a
  // move may change what fits on other nodes than the two it touched.
  bool depends_on_other_pods() const;

  // The scheduler's dense resource accounting (ClusterState): one slot per resource name
  // plus "pods" (1000 per pod; a node stating no pod count holds any number).
  int dims() const;
  const std::string& dim_name(int d) const;
  std::span<const int64_t> request(int pod) const;
  int64_t free(int node, int d) const;
  int64_t allocatable(int node, int d) const;

 private:
  std::string reject_at(int pod, int node, bool resources);

  const Snapshot& snapshot_;
  std::unique_ptr<Config> config_;
  std::unique_ptr<SessionOptions> options_;
  std::unique_ptr<Session> session_;
};

}  // namespace weft::scheduler::query
