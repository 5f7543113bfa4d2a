#include "node-agent/daemon/load_adapter.h"

#include <thread>


namespace weft::agent {

namespace {
// Exported run-queue latency buckets: the collector's log2(ns) buckets 9..34, i.e. upper
// bounds from ~1 us to ~34 s; lower buckets fold into the first, higher into +Inf.
constexpr size_t kFirstBucket = 9;
constexpr size_t kLastBucket = 34;

LatencyHistogram histogram_of(const std::vector<uint64_t>& buckets, std::optional<double> exact_sum) {
  LatencyHistogram h;
  uint64_t running = 0;
  double estimate = 0;
  for (size_t b = 0; b < buckets.size(); ++b) {
    running += buckets[b];
    estimate += static_cast<double>(buckets[b]) * (weft::load::bucket_lower_s(b) + weft::load::bucket_upper_s(b)) / 2;
    if (b >= kFirstBucket && b <= kLastBucket) {
      h.upper_bounds.push_back(weft::load::bucket_upper_s(b));
      h.cumulative_counts.push_back(running);
    }
  }
  h.count = running;
  // The kernel keeps the exact sum where it can; bucket midpoints estimate it otherwise.
  h.sum_seconds = exact_sum.value_or(estimate);
  return h;
}
}  // namespace

std::vector<PodLoad> pods_from_summary(const weft::load::LoadSummary& s) {
  std::vector<PodLoad> out;
  out.reserve(s.pods.size());
  for (const auto& p : s.pods) {
    PodLoad l;
    l.uid = p.cgroup.uid;
    l.runtime_name = p.cgroup.runtime_name;
    l.cpu_cores = p.cpu_cores;
    l.memory_bytes = p.memory_bytes;
    out.push_back(std::move(l));
  }
  return out;
}

LoadSnapshot snapshot_from_summary(const weft::load::LoadSummary& s) {
  LoadSnapshot out;
  out.source = s.source;
  out.cpu = s.window.cpu;
  out.cpus = s.window.cpus;
  out.memory = s.memory_avg;
  out.window_seconds = s.window.window_s;
  out.runq_latency_p99_s = s.window.runq_p99_s;
  out.reclaim_stall_seconds_total = s.reclaim_stall_seconds_total.value_or(0);
  if (!s.runq_buckets_total.empty()) out.runq_histogram = histogram_of(s.runq_buckets_total, s.runq_sum_seconds_total);
  out.json = weft::load::window_json(s.window, s.source, s.source_reason, "");
  out.json["memory"] = out.memory;
  out.pods = pods_from_summary(s);
  return out;
}

Result<LoadSnapshot> CollectorLoadSource::sample() {
  auto summary = sampler_->summary();
  if (!had_summary_) {
    // Right after start the sampler has one reading; the second comes one period later.
    const auto until = std::chrono::steady_clock::now() + period_ + std::chrono::milliseconds(500);
    while (!summary && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      summary = sampler_->summary();
    }
  }
  if (!summary) return make_error("load sampler: no window yet" + [&] {
           auto e = sampler_->last_error();
           return e.empty() ? std::string() : " (" + e + ")";
         }());
  had_summary_ = true;
  if (auto e = sampler_->last_error(); !e.empty()) return make_error("load sampler: " + e);
  return snapshot_from_summary(*summary);
}

Result<LoadSnapshot> NodeLoadWithPods::sample() {
  auto s = node_->sample();
  if (!s) return s;
  // The node's value stands without them: pods come with the monitor's next summary.
  if (auto summary = pods_->summary()) {
    s->pods = pods_from_summary(*summary);
    for (PodLoad& p : s->pods) p.cpu_cores *= pod_cpu_scale_;
  }
  return s;
}

}  // namespace weft::agent
