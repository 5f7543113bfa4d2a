#include "descheduler/app/metrics.h"

#include <sstream>

#include <prometheus/text_serializer.h>

#include "descheduler/app/eviction_events.h"

namespace weft::descheduler {
namespace {

const prometheus::Histogram::BucketBoundaries kLoopBuckets{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,  2.5,
                                                           5,    10,    25,   50,  100, 250, 500};
const prometheus::Histogram::BucketBoundaries kStrategyBuckets{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                               2.5,  5,     10,   25,  50,   100};
// Upstream's series are ALPHA: its metrics library prefixes their help with the level.
constexpr const char* kEvictedHelp =
    "[ALPHA] Number of total evicted pods, by the result, by the strategy, by the namespace, by the node name. "
    "'error' result means a pod could not be evicted";

// The build facts upstream's descheduler_build_info carries as labels. weft's version is its
// project version (the binaries' --version); weft has no Go runtime and bakes in no git
// facts, so those labels are empty, as in an upstream build without its -ldflags.
std::map<std::string, std::string> build_info_labels() {
  return {{"AppVersion", WEFT_VERSION}, {"DeschedulerVersion", WEFT_VERSION}, {"GoVersion", ""},
          {"GitBranch", ""}, {"GitSha1", ""}};
}

// pods_evicted_total's result for a refused eviction: upstream's limit errors, or "error".
std::string upstream_result(const RefusedEviction& r) {
  using By = RefusedEviction::By;
  switch (r.by) {
    case By::TotalLimit: return "maximum number of evicted pods per a descheduling cycle reached";
    case By::NodeLimit: return "maximum number of evicted pods per node reached";
    case By::NamespaceLimit: return "maximum number of evicted pods per namespace reached";
    case By::Api: return "error";
    case By::None: break;
  }
  return "";
}

}  // namespace

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
                    .Add({}, prometheus::Histogram::BucketBoundaries{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60})),
      pods_evicted_total_(
          prometheus::BuildCounter().Name("descheduler_pods_evicted_total").Help(kEvictedHelp).Register(*registry_)),
      loop_duration_(prometheus::BuildHistogram()
                         .Name("descheduler_loop_duration_seconds")
                         .Help("[ALPHA] Time taken to complete a full descheduling cycle")
                         .Register(*registry_)
                         .Add({}, kLoopBuckets)),
      strategy_duration_(prometheus::BuildHistogram()
                             .Name("descheduler_strategy_duration_seconds")
                             .Help("[ALPHA] Time taken to complete Each strategy of the descheduling operation")
                             .Register(*registry_)) {
  cycles_.Add({{"result", "ok"}});
  cycles_.Add({{"result", "error"}});
  prometheus::BuildGauge()
      .Name("descheduler_build_info")
      .Help("[ALPHA] Build info about descheduler, including Go version, Descheduler version, Git SHA, Git branch")
      .Register(*registry_)
      .Add(build_info_labels())
      .Set(1);
}

void DeschedulerMetrics::observe(const Plan& plan, bool dry_run, double seconds) {
  for (const auto& e : plan.evictions)
    evictions_.Add({{"reason", reason_label(e.reason)}, {"dry_run", dry_run ? "true" : "false"}}).Increment();
  for (const auto& s : plan.skipped) skips_.Add({{"reason", reason_label(s.reason)}}).Increment();
  // Each classifying plugin's counts under its profile and plugin labels (a node two
  // classify counts under each); the classes of one that classifies no more read 0.
  for (auto& entry : node_gauges_) entry.second->Set(0);
  for (const auto& [by, counts] : class_counts(plan))
    for (NodeClass c : {NodeClass::Low, NodeClass::Normal, NodeClass::High, NodeClass::Unknown}) {
      auto it = counts.find(c);
      node_gauge(c, by.profile, by.plugin).Set(it == counts.end() ? 0 : it->second);
    }
  cycles_.Add({{"result", "ok"}}).Increment();
  duration_.Observe(seconds);
  // Upstream counts an eviction a success when it is asked for, in a dry run too.
  for (const auto& e : plan.evictions) count_upstream("success", e.plugin, e.profile, e.ns, e.from);
  for (const auto& s : plan.skipped)
    if (std::string result = upstream_result(refused_eviction(s)); !result.empty())
      count_upstream(result, s.plugin, s.profile, s.ns, s.node);
  for (const auto& run : plan.plugin_runs)
    strategy_duration_.Add({{"strategy", run.plugin}, {"profile", run.profile}}, kStrategyBuckets).Observe(run.seconds);
  loop_duration_.Observe(seconds);
}

prometheus::Gauge& DeschedulerMetrics::node_gauge(NodeClass c, const std::string& profile, const std::string& plugin) {
  std::map<std::string, std::string> labels{{"class", to_string(c)}, {"profile", profile}, {"plugin", plugin}};
  auto& gauge = node_gauges_[labels];
  if (!gauge) gauge = &nodes_.Add(labels);
  return *gauge;
}

void DeschedulerMetrics::count_upstream(const std::string& result, const std::string& strategy,
                                        const std::string& profile, const std::string& ns, const std::string& node) {
  pods_evicted_total_.Add({{"result", result}, {"strategy", strategy}, {"profile", profile}, {"namespace", ns}, {"node", node}})
      .Increment();
}

void DeschedulerMetrics::observe_defragment(const defragment::Outcome& outcome) {
  for (size_t i = 0; i < outcome.rooms.size(); ++i) defragment_.Add({{"result", "room"}}).Increment();
  for (const auto& u : outcome.unhelped) defragment_.Add({{"result", u.reason}}).Increment();
}

void DeschedulerMetrics::cycle_failed(double seconds) {
  cycles_.Add({{"result", "error"}}).Increment();
  duration_.Observe(seconds);
  loop_duration_.Observe(seconds);
}

std::string DeschedulerMetrics::text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace weft::descheduler
