// One `weft-scheduler run` cycle: the informers' objects -> the core's snapshot ->
// run_session -> decisions applied to the API -> what was applied remembered in the
// cache until the watches show it.
#pragma once

#include <map>
#include <set>
#include <string>

#include "scheduler/app/run_apply.h"
#include "scheduler/app/run_cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/session.h"

namespace weft::scheduler {

class RunMetrics;

struct CycleSummary {
  size_t pods = 0, pending = 0, bound = 0, bind_failed = 0, rolled_back = 0, evicted = 0;
  size_t status_written = 0, unschedulable = 0, events = 0, errors = 0, skipped_objects = 0;
  double seconds = 0;
};

class SchedulerLoop {
 public:
  SchedulerLoop(ClusterCache& cache, DecisionApplier& applier, Config config, SessionOptions session);
  CycleSummary run_cycle();
  void set_metrics(RunMetrics* metrics) { metrics_ = metrics; }

 private:
  ClusterCache& cache_;
  DecisionApplier& applier_;
  Config config_;
  SessionOptions session_;
  std::map<std::string, std::string> bad_objects_;   // key -> version already warned about
  RunMetrics* metrics_ = nullptr;
};

}  // namespace weft::scheduler
