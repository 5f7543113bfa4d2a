// `weft-scheduler run`'s own metrics, served on --metrics-listen by the daemons' common
// endpoint (common/daemon_http.h) with /healthz (the scheduling loop is alive) and
// /readyz (the caches are synced). Names and meanings: docs/operations.md, "Scrape".
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "common/result.h"
#include "scheduler/app/run_apply.h"
#include "scheduler/core/session.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

// "reclaim: queue q1 ..." -> "reclaim"; "" when the reason has no "word:" prefix.
std::string eviction_action(const std::string& reason);

class RunMetrics {
 public:
  explicit RunMetrics(const std::string& version);

  // One finished cycle: `pending` pods at its start (the snapshot may have been trimmed
  // to what the applier reads by then), and `now`, the wall clock the pods' and
  // PodGroups' creation timestamps are compared with.
  void observe_cycle(const Snapshot& snapshot, const Decisions& decisions, const ApplyReport& report,
                     const ObjectIndex& objects, double seconds, size_t pending,
                     std::chrono::system_clock::time_point now);
  void set_leader(bool leading);
  void set_synced(bool synced);

  // /readyz: the informers have synced (a standby is ready to take over too).
  bool ready() const { return synced_.load(); }
  // /healthz: false only when this replica leads, is synced, and no cycle has finished
  // for `stall` (the loop is wedged: restart it so the standby takes over).
  bool healthy(std::chrono::milliseconds stall) const;
  std::string text() const;

 private:
  void set_queue_gauges(const std::vector<QueueShare>& queues);
  void set_unschedulable(const Decisions& decisions);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Gauge& leader_;
  prometheus::Histogram& cycle_duration_;
  prometheus::Histogram& e2e_duration_;
  prometheus::Histogram& gang_wait_;
  prometheus::Counter& pods_bound_;
  prometheus::Counter& bind_failures_;
  prometheus::Counter& rollbacks_;
  prometheus::Counter& preemptions_;
  prometheus::Counter& reclaims_;
  prometheus::Counter& api_errors_;
  prometheus::Counter& cycles_;
  prometheus::Family<prometheus::Counter>& gang_repairs_;
  prometheus::Family<prometheus::Counter>& degraded_rails_;
  prometheus::Gauge& pending_;
  prometheus::Family<prometheus::Gauge>& unschedulable_;
  prometheus::Family<prometheus::Gauge>& queue_deserved_;
  prometheus::Family<prometheus::Gauge>& queue_allocated_;
  prometheus::Family<prometheus::Gauge>& queue_share_;
  prometheus::Family<prometheus::Gauge>& queue_weight_;

  std::set<std::string> unschedulable_reasons_;                 // label values set last cycle
  std::set<std::pair<std::string, std::string>> queue_series_;   // (queue, resource) set last cycle
  std::set<std::string> queues_;
  std::map<std::string, std::string> gangs_started_;            // PodGroup key -> uid already observed
  std::atomic<bool> synced_{false};
  std::atomic<bool> leading_{false};
  std::atomic<int64_t> last_cycle_ns_{0};                        // steady clock, 0 = none yet
  std::atomic<int64_t> became_active_ns_{0};                     // leading and synced since
};

}  // namespace weft::scheduler
