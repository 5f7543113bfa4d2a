// The baseline of the affinity benches through the API: a naive placer in the bench
// process told the workload's rules (not reading the pods' terms, no scoring). It lists the
// nodes and bound pods once (before the clock, as a scheduler's caches are synced before),
// polls the pending pods, and puts each on the next node (next fit, round the node list)
// where it fits and every rule holds, from per-domain counts of the pods placed;
// bindings `threads` at a time. What it measures is the API's share of a placement.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/native_gang/api_run.h"
#include "bench/native_gang/naive_placer.h"
#include "bench/scheduler_affinity/workloads.h"

namespace weft::bench {

class RulePlacer : public Placer {
 public:
  RulePlacer(kube::Client& client, const AffinityCase& a, int threads);
  Status sync() override;
  Status run(std::chrono::steady_clock::time_point deadline) override;

 private:
  using Node = NodeRoom;
  // The node for this pod, or -1; counts it in where it goes.
  int place(const nlohmann::json& pod, const kube::ResourceList& request);
  bool allowed(const Rule& r, size_t rule, const Node& n) const;
  void count(const nlohmann::json& pod, const Node& n);

  kube::Client& client_;
  const AffinityCase& case_;
  int threads_;
  std::vector<Node> nodes_;
  std::vector<std::map<std::string, int>> per_domain_;   // rule -> domain -> matching pods
  size_t cursor_ = 0;
  std::set<std::string> placed_;
};

}  // namespace weft::bench
