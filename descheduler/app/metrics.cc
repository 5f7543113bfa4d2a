#include "descheduler/app/metrics.h"

#include <sstream>

#include <prometheus/text_serializer.h>

namespace weft::descheduler {

std::string reason_label(const std::string& reason) {
  size_t colon = reason.find(':');
  return colon == std::string::npos ? reason : reason.substr(0, colon);
}

DeschedulerMetrics::DeschedulerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      evictions_(prometheus::BuildCounter()
                     .Name("weft_descheduler_evictions_total")
                     .Help("Pods evicted (dry_run=\"true\": planned only), by reason")
                     .Register(*registry_)),
      skips_(prometheus::BuildCounter()
                 .Name("weft_descheduler_skips_total")
                 .Help("Candidate pods on high nodes left in place, by reason")
                 .Register(*registry_)),
      nodes_(prometheus::BuildGauge()
                 .Name("weft_descheduler_nodes")
                 .Help("Nodes by load class in the last cycle (unknown: missing, stale or source down)")
                 .Register(*registry_)),
      cycles_(prometheus::BuildCounter()
                  .Name("weft_descheduler_cycles_total")
                  .Help("Descheduling cycles by result")
                  .Register(*registry_)),
      defragment_(prometheus::BuildCounter()
                      .Name("weft_descheduler_defragment_gangs_total")
                      .Help("Pending domain-bound gangs GangDefragment looked at, by result (room, or why not)")
                      .Register(*registry_)),
      duration_(prometheus::BuildHistogram()
                    .Name("weft_descheduler_cycle_duration_seconds")
                    .Help("Wall time of one cycle: list, load, plan, evict")
                    .Register(*registry_)
                    .Add({}, prometheus::Histogram::BucketBoundaries{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60})) {
  for (NodeClass c : {NodeClass::Low, NodeClass::Normal, NodeClass::High, NodeClass::Unknown})
    nodes_.Add({{"class", to_string(c)}}).Set(0);
  cycles_.Add({{"result", "ok"}});
  cycles_.Add({{"result", "error"}});
}

void DeschedulerMetrics::observe(const Plan& plan, bool dry_run, double seconds) {
  for (const auto& e : plan.evictions)
    evictions_.Add({{"reason", reason_label(e.reason)}, {"dry_run", dry_run ? "true" : "false"}}).Increment();
  for (const auto& s : plan.skipped) skips_.Add({{"reason", reason_label(s.reason)}}).Increment();
  for (NodeClass c : {NodeClass::Low, NodeClass::Normal, NodeClass::High, NodeClass::Unknown}) {
    auto it = plan.class_counts.find(c);
    nodes_.Add({{"class", to_string(c)}}).Set(it == plan.class_counts.end() ? 0 : it->second);
  }
  cycles_.Add({{"result", "ok"}}).Increment();
  duration_.Observe(seconds);
}

void DeschedulerMetrics::observe_defragment(const defragment::Outcome& outcome) {
  for (size_t i = 0; i < outcome.rooms.size(); ++i) defragment_.Add({{"result", "room"}}).Increment();
  for (const auto& u : outcome.unhelped) defragment_.Add({{"result", u.reason}}).Increment();
}

void DeschedulerMetrics::cycle_failed(double seconds) {
  cycles_.Add({{"result", "error"}}).Increment();
  duration_.Observe(seconds);
}

std::string DeschedulerMetrics::text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace weft::descheduler
