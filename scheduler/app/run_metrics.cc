#include "scheduler/app/run_metrics.h"

#include <optional>
#include <sstream>

#include <prometheus/text_serializer.h>

#include "kube/quantity.h"
#include "kube/time.h"

namespace weft::scheduler {

using prometheus::Histogram;

namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Seconds from the object's metadata.creationTimestamp to now; nullopt when it has none.
std::optional<double> age_seconds(const ObjectIndex& objects, const std::string& kind, const std::string& key,
                                  std::chrono::system_clock::time_point now) {
  auto it = objects.find(object_index_key(kind, key));
  if (it == objects.end() || !it->second.contains("metadata")) return std::nullopt;
  auto created = kube::parse_rfc3339(it->second["metadata"].value("creationTimestamp", ""));
  if (!created) return std::nullopt;
  return std::max(0.0, std::chrono::duration<double>(now - *created).count());
}

std::string uid_of(const ObjectIndex& objects, const std::string& kind, const std::string& key) {
  auto it = objects.find(object_index_key(kind, key));
  return it == objects.end() ? "" : it->second["metadata"].value("uid", "");
}

// Latencies from 10 ms to ~45 min: a pod waits from seconds (free capacity) to many
// minutes (a gang waiting for a reclaim).
Histogram::BucketBoundaries wait_buckets() {
  return {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 2700};
}

}  // namespace

std::string eviction_action(const std::string& reason) {
  size_t colon = reason.find(':');
  if (colon == std::string::npos || reason.find(' ') < colon) return "";
  return reason.substr(0, colon);
}

RunMetrics::RunMetrics(const std::string& version)
    : registry_(std::make_shared<prometheus::Registry>()),
      leader_(prometheus::BuildGauge()
                  .Name("weft_scheduler_leader")
                  .Help("1 while this replica holds the leader election Lease (or runs without election)")
                  .Register(*registry_)
                  .Add({})),
      cycle_duration_(prometheus::BuildHistogram()
                          .Name("weft_scheduler_cycle_duration_seconds")
                          .Help("Wall time of one scheduling cycle: snapshot, session, API writes")
                          .Register(*registry_)
                          .Add({}, Histogram::BucketBoundaries{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                               2.5, 5, 10, 30})),
      e2e_duration_(prometheus::BuildHistogram()
                        .Name("weft_scheduler_e2e_scheduling_duration_seconds")
                        .Help("From a pod's creation to the API accepting its binding")
                        .Register(*registry_)
                        .Add({}, wait_buckets())),
      gang_wait_(prometheus::BuildHistogram()
                     .Name("weft_scheduler_gang_wait_seconds")
                     .Help("From a PodGroup's creation to the cycle that bound its gang")
                     .Register(*registry_)
                     .Add({}, wait_buckets())),
      pods_bound_(prometheus::BuildCounter()
                      .Name("weft_scheduler_pods_bound_total")
                      .Help("Bindings the API accepted and the scheduler kept")
                      .Register(*registry_)
                      .Add({})),
      bind_failures_(prometheus::BuildCounter()
                         .Name("weft_scheduler_bind_failures_total")
                         .Help("Bindings the API refused after the retries")
                         .Register(*registry_)
                         .Add({})),
      rollbacks_(prometheus::BuildCounter()
                     .Name("weft_scheduler_gang_rollback_pods_total")
                     .Help("Gang members bound and evicted again because the API refused another member")
                     .Register(*registry_)
                     .Add({})),
      preemptions_(prometheus::BuildCounter()
                       .Name("weft_scheduler_preemptions_total")
                       .Help("Pods evicted for a higher-priority job of the same queue")
                       .Register(*registry_)
                       .Add({})),
      reclaims_(prometheus::BuildCounter()
                    .Name("weft_scheduler_reclaims_total")
                    .Help("Pods evicted from a queue above its deserved share for a queue below it")
                    .Register(*registry_)
                    .Add({})),
      api_errors_(prometheus::BuildCounter()
                      .Name("weft_scheduler_api_errors_total")
                      .Help("API writes (bindings, evictions, status, events) that failed")
                      .Register(*registry_)
                      .Add({})),
      cycles_(prometheus::BuildCounter()
                  .Name("weft_scheduler_cycles_total")
                  .Help("Scheduling cycles run by this replica")
                  .Register(*registry_)
                  .Add({})),
      gang_repairs_(prometheus::BuildCounter()
                        .Name("weft_scheduler_gang_repairs_total")
                        .Help("Gangs found below minMember with running members: completed in their domain, or "
                              "undone (members evicted) after --gang-repair-timeout")
                        .Register(*registry_)),
      degraded_rails_(prometheus::BuildCounter()
                          .Name("weft_scheduler_degraded_rail_nodes_total")
                          .Help("Nodes with fewer active IB rails than expected (rail-health) that a bound multi-node "
                                "gang was kept off (avoided) or placed on (used), once per gang and node")
                          .Register(*registry_)),
      pending_(prometheus::BuildGauge()
                   .Name("weft_scheduler_pending_pods")
                   .Help("Pods of this scheduler without a node at the start of the last cycle")
                   .Register(*registry_)
                   .Add({})),
      unschedulable_(prometheus::BuildGauge()
                         .Name("weft_scheduler_unschedulable_pods")
                         .Help("Pending pods the last cycle could not place, by the reason of their "
                               "PodGroup's Unschedulable condition")
                         .Register(*registry_)),
      queue_deserved_(prometheus::BuildGauge()
                          .Name("weft_scheduler_queue_deserved")
                          .Help("Queue's deserved share (proportion plugin), cpu in cores, memory in bytes")
                          .Register(*registry_)),
      queue_allocated_(prometheus::BuildGauge()
                           .Name("weft_scheduler_queue_allocated")
                           .Help("Resources allocated to the queue's pods, cpu in cores, memory in bytes")
                           .Register(*registry_)),
      queue_share_(prometheus::BuildGauge()
                       .Name("weft_scheduler_queue_share")
                       .Help("allocated / deserved per resource (above 1: the queue may be reclaimed from)")
                       .Register(*registry_)),
      queue_weight_(prometheus::BuildGauge()
                        .Name("weft_scheduler_queue_weight")
                        .Help("Queue's spec.weight")
                        .Register(*registry_)) {
  prometheus::BuildGauge()
      .Name("weft_scheduler_build_info")
      .Help("Always 1; the scheduler's version")
      .Register(*registry_)
      .Add({{"version", version}})
      .Set(1);
  for (const char* result : {"completed", "undone"}) gang_repairs_.Add({{"result", result}});
  for (const char* decision : {"avoided", "used"}) degraded_rails_.Add({{"decision", decision}});
}

void RunMetrics::observe_cycle(const Snapshot& snapshot, const Decisions& decisions, const ApplyReport& report,
                               const ObjectIndex& objects, double seconds, size_t pending,
                               std::chrono::system_clock::time_point now) {
  cycles_.Increment();
  cycle_duration_.Observe(seconds);
  last_cycle_ns_ = steady_ns();
  pending_.Set(static_cast<double>(pending));

  pods_bound_.Increment(static_cast<double>(report.bound.size()));
  bind_failures_.Increment(static_cast<double>(report.bind_failed.size()));
  rollbacks_.Increment(static_cast<double>(report.rolled_back.size()));
  api_errors_.Increment(report.errors);
  std::map<std::string, std::string> group_of;
  for (const auto& p : snapshot.pods) group_of[p.key] = p.group;
  std::set<std::string> gangs_bound;
  for (const auto& b : report.bound) {
    if (auto age = age_seconds(objects, "Pod", b.pod, now)) e2e_duration_.Observe(*age);
    if (auto g = group_of.find(b.pod); g != group_of.end() && !g->second.empty()) gangs_bound.insert(g->second);
  }
  // A gang's wait ends with the first cycle that binds it (all-or-nothing, so its
  // minMember together); later cycles binding more of its pods do not count again.
  for (const auto& g : gangs_bound) {
    const std::string uid = uid_of(objects, "PodGroup", g);
    if (gangs_started_[g] == uid) continue;
    gangs_started_[g] = uid;
    if (auto age = age_seconds(objects, "PodGroup", g, now)) gang_wait_.Observe(*age);
  }
  for (auto it = gangs_started_.begin(); it != gangs_started_.end();)
    it = snapshot.podgroups.count(it->first) ? std::next(it) : gangs_started_.erase(it);

  // Counted once the API took it: a completion when its bindings landed, an undo when
  // one of its members' evictions did.
  std::set<std::string> gangs_evicted;
  for (const auto& pod : report.evicted)
    if (auto g = group_of.find(pod); g != group_of.end() && !g->second.empty()) gangs_evicted.insert(g->second);
  for (const auto& r : decisions.gang_repairs)
    if ((r.result == "completed" ? gangs_bound : gangs_evicted).count(r.podgroup))
      gang_repairs_.Add({{"result", r.result}}).Increment();
  for (const auto& c : decisions.degraded_rails)
    if (gangs_bound.count(c.podgroup)) degraded_rails_.Add({{"decision", c.used ? "used" : "avoided"}}).Increment();
  std::map<std::string, std::string> action_of;
  for (const auto& e : decisions.evictions) action_of[e.pod] = eviction_action(e.reason);
  for (const auto& pod : report.evicted) {
    const std::string action = action_of[pod];
    if (action == "preempt") preemptions_.Increment();
    else if (action == "reclaim") reclaims_.Increment();
  }
  set_unschedulable(decisions);
  set_queue_gauges(decisions.queues);
}

void RunMetrics::set_unschedulable(const Decisions& decisions) {
  std::map<std::string, int> by_reason;
  for (const auto& [pod, message] : decisions.unschedulable) {
    auto r = decisions.unschedulable_reasons.find(pod);
    ++by_reason[r == decisions.unschedulable_reasons.end() || r->second.empty() ? "Unknown" : r->second];
  }
  for (const auto& reason : unschedulable_reasons_)
    if (!by_reason.count(reason)) unschedulable_.Remove(&unschedulable_.Add({{"reason", reason}}));
  unschedulable_reasons_.clear();
  for (const auto& [reason, n] : by_reason) {
    unschedulable_.Add({{"reason", reason}}).Set(n);
    unschedulable_reasons_.insert(reason);
  }
}

void RunMetrics::set_queue_gauges(const std::vector<QueueShare>& queues) {
  std::set<std::pair<std::string, std::string>> series;
  std::set<std::string> names;
  for (const auto& q : queues) {
    names.insert(q.name);
    queue_weight_.Add({{"queue", q.name}}).Set(q.weight);
    std::set<std::string> resources;
    for (const auto& [r, v] : q.deserved) resources.insert(r);
    for (const auto& [r, v] : q.allocated) resources.insert(r);
    for (const auto& r : resources) {
      auto d = q.deserved.find(r);
      auto a = q.allocated.find(r);
      const double deserved = d == q.deserved.end() ? 0 : kube::to_base_units(d->second);
      const double allocated = a == q.allocated.end() ? 0 : kube::to_base_units(a->second);
      const std::map<std::string, std::string> labels = {{"queue", q.name}, {"resource", r}};
      queue_deserved_.Add(labels).Set(deserved);
      queue_allocated_.Add(labels).Set(allocated);
      // Nothing deserved: any allocation is above its share; none is a share of 0.
      queue_share_.Add(labels).Set(deserved > 0 ? allocated / deserved : (allocated > 0 ? 1e9 : 0));
      series.insert({q.name, r});
    }
  }
  for (const auto& [queue, resource] : queue_series_) {
    if (series.count({queue, resource})) continue;
    const std::map<std::string, std::string> labels = {{"queue", queue}, {"resource", resource}};
    for (auto* f : {&queue_deserved_, &queue_allocated_, &queue_share_}) f->Remove(&f->Add(labels));
  }
  for (const auto& q : queues_)
    if (!names.count(q)) queue_weight_.Remove(&queue_weight_.Add({{"queue", q}}));
  queue_series_ = std::move(series);
  queues_ = std::move(names);
}

void RunMetrics::set_leader(bool leading) {
  if (leading && !leading_.exchange(true)) became_active_ns_ = steady_ns();
  if (!leading) leading_ = false;
  leader_.Set(leading ? 1 : 0);
}

void RunMetrics::set_synced(bool synced) {
  if (synced && !synced_.exchange(true)) became_active_ns_ = steady_ns();
  if (!synced) synced_ = false;
}

bool RunMetrics::healthy(std::chrono::milliseconds stall) const {
  if (!leading_ || !synced_) return true;
  const int64_t since = std::max(last_cycle_ns_.load(), became_active_ns_.load());
  return steady_ns() - since <= std::chrono::duration_cast<std::chrono::nanoseconds>(stall).count();
}

std::string RunMetrics::text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace weft::scheduler
