// The descheduler's own metrics (prometheus-cpp): evictions and skips by reason, nodes by
// class, cycle duration. Served on --metrics-listen in --interval mode; written to the
// log after a --once run.
#pragma once

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
};

}  // namespace weft::descheduler
