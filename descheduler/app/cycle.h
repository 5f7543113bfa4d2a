// One descheduling cycle against the API: list the cluster, read the load, plan, evict
// (unless dry-run), remember what moved.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/app/load_source.h"
#include "descheduler/app/metrics.h"
#include "descheduler/app/state_store.h"
#include "descheduler/core/planner.h"
#include "kube/client/client.h"

namespace weft::descheduler {

using EvictFn = std::function<Result<kube::EvictionResult>(const std::string& ns, const std::string& name)>;

// Carries the plan out: each eviction is tried once. A PodDisruptionBudget refusal (429)
// becomes a skip with reason "pdb: <the API's message>", a vanished pod "pod-gone"; after
// three API errors in a row the rest are skipped ("eviction-aborted") rather than hammering
// a failing server. plan.evictions keeps only the pods that were evicted.
void execute_evictions(Plan& plan, const EvictFn& evict);

struct CycleConfig {
  Policy policy;
  std::vector<LoadRead> loads;   // what the profiles' balance plugins read (load_reads)
  Seconds max_metric_age{300};
  Seconds cooldown{600};
  bool dry_run = false;
  RoomJournal rooms;   // GangDefragment rooms in progress (defragment_step.h); unset: not kept
  const NodeMetricsCollector* node_usage = nullptr;   // run --interval on metrics.k8s.io: the averaged node usage
};

class Cycle {
 public:
  Cycle(kube::Client& client, CycleConfig config, DeschedulerMetrics& metrics)
      : client_(client), config_(std::move(config)), metrics_(metrics) {}
  // Plans and (unless dry-run) evicts; state is read for the plan and, unless dry-run,
  // updated with what was evicted. Errors: the cluster could not be listed, or the
  // policy does not apply to it. Load source failures are not errors (nothing moves).
  Result<Plan> run(DeschedulerState& state);

 private:
  kube::Client& client_;
  CycleConfig config_;
  DeschedulerMetrics& metrics_;
};

}  // namespace weft::descheduler
