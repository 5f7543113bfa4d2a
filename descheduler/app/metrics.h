// The descheduler's metrics (prometheus-cpp), served on --metrics-listen in --interval
// mode and written to the log after a --once run: weft's own (evictions and skips by
// reason, nodes by class, cycle duration) and the Kubernetes descheduler's series under
// their names and labels (pods_evicted_total, loop and strategy durations, build_info), so
// its dashboards and alerts keep working.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "descheduler/core/defragment/defragment.h"
#include "descheduler/core/planner.h"

namespace weft::descheduler {

// "pdb: Cannot evict ..." -> "pdb": the label value of a reason (text before ':').
std::string reason_label(const std::string& reason);

class DeschedulerMetrics {
 public:
  DeschedulerMetrics();
  // One finished cycle: its (executed) plan and how long it took.
  void observe(const Plan& plan, bool dry_run, double seconds);
  void cycle_failed(double seconds);
  // GangDefragment's gangs: given room, or the reason they were not helped.
  void observe_defragment(const defragment::Outcome& outcome);
  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }
  std::string text() const;   // the exposition text

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& evictions_;
  prometheus::Family<prometheus::Counter>& skips_;
  prometheus::Family<prometheus::Gauge>& nodes_;
  prometheus::Family<prometheus::Counter>& cycles_;
  prometheus::Family<prometheus::Counter>& defragment_;
  prometheus::Histogram& duration_;
  // Upstream's (not their names deprecated since 0.34: a counter without _total is not a
  // valid Prometheus counter name, and upstream's dashboards moved to these).
  prometheus::Family<prometheus::Counter>& pods_evicted_total_;
  prometheus::Histogram& loop_duration_;
  prometheus::Family<prometheus::Histogram>& strategy_duration_;

  std::map<std::map<std::string, std::string>, prometheus::Gauge*> node_gauges_;   // every series set so far

  prometheus::Gauge& node_gauge(NodeClass c, const std::string& profile, const std::string& plugin);
  void count_upstream(const std::string& result, const std::string& strategy, const std::string& profile,
                      const std::string& ns, const std::string& node);
};

}  // namespace weft::descheduler
