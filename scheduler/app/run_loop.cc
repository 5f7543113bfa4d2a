#include "scheduler/app/run_loop.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "kube/objects.h"
#include "scheduler/app/run_metrics.h"

namespace weft::scheduler {

using nlohmann::json;

SchedulerLoop::SchedulerLoop(ClusterCache& cache, DecisionApplier& applier, Config config, SessionOptions session)
    : cache_(cache), applier_(applier), config_(std::move(config)), session_(std::move(session)) {}

CycleSummary SchedulerLoop::run_cycle() {
  const auto start = std::chrono::steady_clock::now();
  CycleSummary sum;
  std::vector<json> objects = cache_.snapshot();
  SnapshotBuilder builder;
  ObjectIndex index;
  std::map<std::string, std::string> versions;   // PodGroup key -> cached resourceVersion
  std::map<std::string, std::string> still_bad;
  for (auto& object : objects) {
    const std::string kind = kube::kind_of(object), key = kube::key_of(object);
    const std::string version = object["metadata"].value("resourceVersion", "");
    if (auto s = builder.add(object, kind + " " + key); !s) {
      // The API validated it, so this is a kind of content the core does not take; say
      // so once per version and schedule the rest.
      ++sum.skipped_objects;
      still_bad[key] = version;
      if (bad_objects_[key] != version) spdlog::warn("skipping {} {}: {}", kind, key, s.message());
      continue;
    }
    if (kind == "PodGroup") versions[key] = version;
    index.emplace(object_index_key(kind, key), std::move(object));
  }
  bad_objects_ = std::move(still_bad);
  Snapshot snap = builder.build(Clock::now());
  Decisions decisions = run_session(snap, config_, session_);

  ApplyReport report = applier_.apply(decisions, snap, index);
  for (const auto& b : report.bound) {
    auto it = index.find(object_index_key("Pod", b.pod));
    std::string uid = it == index.end() ? "" : it->second["metadata"].value("uid", "");
    cache_.assume_bound(b.pod, uid, b.node);
  }
  for (const auto& w : report.status_written) cache_.assume_status(w.podgroup, w.status, versions[w.podgroup]);

  sum.pods = snap.pods.size();
  for (const auto& p : snap.pods) sum.pending += p.node.empty() && !p.terminal() ? 1 : 0;
  sum.bound = report.bound.size();
  sum.bind_failed = report.bind_failed.size();
  sum.rolled_back = report.rolled_back.size();
  sum.evicted = report.evicted.size();
  sum.status_written = report.status_written.size();
  sum.unschedulable = decisions.unschedulable.size();
  sum.events = report.events_recorded;
  sum.errors = report.errors;
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (metrics_)
    metrics_->observe_cycle(snap, decisions, report, index, sum.seconds, sum.pending, std::chrono::system_clock::now());
  return sum;
}

}  // namespace weft::scheduler
