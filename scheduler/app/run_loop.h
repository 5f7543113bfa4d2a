// One `weft-scheduler run` cycle: the informers' objects -> the core's snapshot ->
// run_session -> decisions applied to the API -> what was applied remembered in the
// cache until the watches show it.
//
// Pipelined (bindings in flight together): a cycle's decisions are assumed in the cache
// (bindings, PodGroup status) when they are handed to the API, not when it answers, and
// applied on a thread of their own while the next cycle snapshots and decides, as
// kube-scheduler's binding cycle runs beside its scheduling cycle. The next cycle's
// decisions are applied only once these have all answered; what the API refused is then
// forgotten (the pod is pending again for the cycle after).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "scheduler/app/run_apply.h"
#include "scheduler/app/run_cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/session.h"

namespace weft::scheduler {

class RunMetrics;

struct CycleSummary {
  size_t pods = 0, pending = 0, bound = 0, bind_failed = 0, rolled_back = 0, evicted = 0;
  size_t status_written = 0, unschedulable = 0, events = 0, events_failed = 0, errors = 0, skipped_objects = 0;
  double seconds = 0;
  double snapshot_seconds = 0, decide_seconds = 0, apply_seconds = 0;   // the parts of `seconds`
  bool complete = true;   // false: nothing was applied yet (the first pipelined call)
};

class SchedulerLoop {
 public:
  SchedulerLoop(ClusterCache& cache, DecisionApplier& applier, Config config, SessionOptions session,
                bool pipelined = false);
  ~SchedulerLoop();
  // Snapshots, decides and applies one cycle. Pipelined, the apply runs on after this
  // returns, and the summary is that of the previous cycle, whose apply has ended.
  CycleSummary run_cycle();
  // Waits for the cycle being applied (pipelined) and returns its summary.
  CycleSummary finish();
  void set_metrics(RunMetrics* metrics) { metrics_ = metrics; }

 private:
  struct Cycle;
  void assume(const Cycle& c);
  // Drops what the applier does not read of the cycle's snapshot and index, so a cycle
  // being applied does not hold a second copy of the cluster beside the next one's.
  void keep_for_apply(Cycle& c);
  void take_in(Cycle& c, const ApplyReport& report);

  ClusterCache& cache_;
  DecisionApplier& applier_;
  Config config_;
  SessionOptions session_;
  std::map<std::string, std::string> bad_objects_;   // "kind key" -> version already warned about
  bool pipelined_;
  std::unique_ptr<Cycle> in_flight_;
  std::thread applying_;
  RunMetrics* metrics_ = nullptr;
};

}  // namespace weft::scheduler
