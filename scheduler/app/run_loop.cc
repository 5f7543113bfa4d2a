#include "scheduler/app/run_loop.h"

#include <algorithm>
#include <chrono>
#include <tuple>
#include <unordered_set>

#include <spdlog/spdlog.h>

#include "kube/objects.h"
#include "scheduler/core/native_groups.h"
#include "scheduler/app/run_metrics.h"

namespace weft::scheduler {

using nlohmann::json;

namespace {

// What the applier and the metrics read of an object (uids for bindings, Event references,
// creation times for latencies): not the
// whole object, which the snapshot has taken in already.
json reference_of(const json& object) {
  json meta = json::object();
  const json& m = object["metadata"];
  for (const char* k : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (auto it = m.find(k); it != m.end()) meta[k] = *it;
  return {{"apiVersion", object.value("apiVersion", "")}, {"kind", object.value("kind", "")}, {"metadata", meta}};
}

}  // namespace

// One cycle from its snapshot until its decisions have been applied.
struct SchedulerLoop::Cycle {
  CycleSummary summary;
  Snapshot snap;
  Decisions decisions;
  ObjectIndex index;                             // kinds other than Pod and Node
  std::vector<DecodedPtr> decoded;               // Nodes then Pods, by key: referenced on demand
  std::map<std::string, std::string> versions;   // PodGroup key -> cached resourceVersion
  std::chrono::steady_clock::time_point start;
  ApplyReport report;
};

SchedulerLoop::SchedulerLoop(ClusterCache& cache, DecisionApplier& applier, Config config, SessionOptions session,
                             bool pipelined)
    : cache_(cache), applier_(applier), config_(std::move(config)), session_(std::move(session)),
      pipelined_(pipelined) {}

SchedulerLoop::~SchedulerLoop() { finish(); }

namespace {
std::string uid_of(const ObjectIndex& index, const std::string& pod) {
  auto it = index.find(object_index_key("Pod", pod));
  return it == index.end() ? "" : it->second["metadata"].value("uid", "");
}
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

void SchedulerLoop::assume(const Cycle& c) {
  for (const auto& b : c.decisions.bindings) cache_.assume_bound(b.pod, uid_of(c.index, b.pod), b.node);
  for (const auto& w : c.decisions.status_writes) {
    auto v = c.versions.find(w.podgroup);
    cache_.assume_status(w.podgroup, w.status, v == c.versions.end() ? "" : v->second);
  }
}

void SchedulerLoop::keep_for_apply(Cycle& c) {
  // Hashed: every pod of the snapshot is looked up in these.
  std::unordered_set<std::string> pods, groups;
  std::set<std::string> keys;
  pods.reserve(c.decisions.bindings.size() + c.decisions.evictions.size() + c.decisions.events.size());
  for (const auto& b : c.decisions.bindings) pods.insert(b.pod);
  for (const auto& e : c.decisions.evictions) pods.insert(e.pod);
  for (const auto& w : c.decisions.status_writes) groups.insert(w.podgroup);
  for (const auto& e : c.decisions.events) {
    if (e.kind == "Pod") pods.insert(e.object);
    if (e.kind == "PodGroup") groups.insert(e.object);
    keys.insert(object_index_key(e.kind, e.object));
  }
  for (const auto& p : c.snap.pods)
    if (pods.count(p.key) && !p.group.empty()) groups.insert(p.group);
  std::vector<PodInfo> kept;
  for (auto& p : c.snap.pods) {
    if (!pods.count(p.key) && !groups.count(p.group)) continue;
    keys.insert(object_index_key("Pod", p.key));
    kept.push_back(std::move(p));
  }
  c.snap.pods = std::move(kept);
  c.snap.nodes = {};
  for (const auto& g : groups) keys.insert(object_index_key("PodGroup", g));
  for (auto& k : applier_.remembered_objects()) keys.insert(std::move(k));
  auto decoded_less = [](const DecodedPtr& d, const std::pair<std::string, std::string>& kind_key) {
    return std::tie(d->kind(), d->key()) < std::tie(kind_key.first, kind_key.second);
  };
  ObjectIndex index;
  for (const auto& k : keys) {
    if (auto it = c.index.find(k); it != c.index.end()) {
      index.emplace(k, std::move(it->second));
      continue;
    }
    const size_t slash = k.find('/');
    const std::pair<std::string, std::string> kind_key{k.substr(0, slash), k.substr(slash + 1)};
    auto d = std::lower_bound(c.decoded.begin(), c.decoded.end(), kind_key, decoded_less);
    if (d != c.decoded.end() && (*d)->kind() == kind_key.first && (*d)->key() == kind_key.second)
      index.emplace(k, (*d)->reference());
  }
  c.index = std::move(index);
  c.decoded = {};
}

void SchedulerLoop::take_in(Cycle& c, const ApplyReport& report) {
  CycleSummary& sum = c.summary;
  std::set<std::string> bound, written;
  for (const auto& b : report.bound) bound.insert(b.pod);
  for (const auto& w : report.status_written) written.insert(w.podgroup);
  if (pipelined_) {
    // Assumed when handed over: forget what the API did not take.
    for (const auto& b : c.decisions.bindings)
      if (!bound.count(b.pod)) cache_.forget_bound(b.pod);
    for (const auto& w : c.decisions.status_writes)
      if (!written.count(w.podgroup)) cache_.forget_status(w.podgroup);
  } else {
    for (const auto& b : report.bound) cache_.assume_bound(b.pod, uid_of(c.index, b.pod), b.node);
    for (const auto& w : report.status_written) cache_.assume_status(w.podgroup, w.status, c.versions[w.podgroup]);
  }
  sum.bound = report.bound.size();
  sum.bind_failed = report.bind_failed.size();
  sum.rolled_back = report.rolled_back.size();
  sum.evicted = report.evicted.size();
  sum.status_written = report.status_written.size();
  sum.events = report.events_recorded;
  sum.events_failed = report.events_failed;
  sum.errors = report.errors;
  sum.seconds = seconds_since(c.start);
  if (metrics_)
    metrics_->observe_cycle(c.snap, c.decisions, report, c.index, sum.seconds, sum.pending,
                            std::chrono::system_clock::now());
}

CycleSummary SchedulerLoop::finish() {
  if (!in_flight_) return CycleSummary{.complete = false};
  applying_.join();
  std::unique_ptr<Cycle> c = std::move(in_flight_);
  take_in(*c, c->report);
  return c->summary;
}

CycleSummary SchedulerLoop::run_cycle() {
  auto cycle = std::make_unique<Cycle>();
  Cycle& c = *cycle;
  c.start = std::chrono::steady_clock::now();
  CycleSummary& sum = c.summary;
  SnapshotBuilder builder;
  // A vector doubling its way to 100,000 pods holds two copies for a moment.
  const size_t nodes = cache_.decoded_size("Node"), pods = cache_.decoded_size("Pod");
  builder.reserve(nodes + nodes / 64, pods + pods / 64);
  c.decoded.reserve(nodes + pods + (nodes + pods) / 64);
  std::map<std::string, std::string> still_bad;
  // The API validated it, so this is a kind of content the core does not take; say so
  // once per version and schedule the rest.
  auto skip = [&](const std::string& kind, const std::string& key, const std::string& version,
                  const std::string& why) {
    ++sum.skipped_objects;
    still_bad[kind + " " + key] = version;
    if (bad_objects_[kind + " " + key] != version) spdlog::warn("skipping {} {}: {}", kind, key, why);
  };
  cache_.visit(
      [&](json& object) {
        const std::string kind = kube::kind_of(object), key = kube::key_of(object);
        const std::string version = object["metadata"].value("resourceVersion", "");
        if (auto s = builder.add(object, kind + " " + key); !s) return skip(kind, key, version, s.message());
        if (kind == "PodGroup") c.versions[group_key_of(object)] = version;
        c.index.emplace(object_index_key(kind, key), reference_of(object));
      },
      [&](const DecodedPtr& d, const ClusterCache::PodOverlay& overlay) {
        if (auto p = d->pod()) {
          PodInfo pod = *p;
          if (!overlay.node.empty()) pod.set_node(overlay.node);
          if (overlay.leaving) pod.terminating = true;
          builder.add(std::move(pod));
        } else if (auto n = d->node()) {
          builder.add(NodeInfo(*n));
        } else {
          return skip(d->kind(), d->key(), d->version, d->undecodable()->message);
        }
        c.decoded.push_back(d);
      });
  bad_objects_ = std::move(still_bad);
  auto by_kind_key = [](const DecodedPtr& a, const DecodedPtr& b) {
    return std::tie(a->kind(), a->key()) < std::tie(b->kind(), b->key());
  };
  if (!std::is_sorted(c.decoded.begin(), c.decoded.end(), by_kind_key))
    std::sort(c.decoded.begin(), c.decoded.end(), by_kind_key);
  c.snap = builder.build(Clock::now());
  sum.snapshot_seconds = seconds_since(c.start);
  const auto decide_start = std::chrono::steady_clock::now();
  c.decisions = run_session(c.snap, config_, session_);
  sum.decide_seconds = seconds_since(decide_start);
  sum.pods = c.snap.pods.size();
  for (const auto& p : c.snap.pods) sum.pending += p.node.empty() && !p.terminal() ? 1 : 0;
  sum.unschedulable = c.decisions.unschedulable.size();

  if (!pipelined_) {
    keep_for_apply(c);
    const auto apply_start = std::chrono::steady_clock::now();
    ApplyReport report = applier_.apply(c.decisions, c.snap, c.index);
    sum.apply_seconds = seconds_since(apply_start);
    take_in(c, report);
    return sum;
  }
  CycleSummary previous = finish();
  keep_for_apply(c);
  assume(c);
  in_flight_ = std::move(cycle);
  applying_ = std::thread([this, &c] {
    const auto apply_start = std::chrono::steady_clock::now();
    c.report = applier_.apply(c.decisions, c.snap, c.index);
    c.summary.apply_seconds = seconds_since(apply_start);
  });
  return previous;
}

}  // namespace weft::scheduler
