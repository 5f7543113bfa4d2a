#include "node-agent/daemon/load_adapter.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "collectors/load/histogram.h"

namespace weft::agent {

namespace {
// Exported run-queue latency buckets: log2 buckets 9..34 of the collector, i.e. upper
// bounds from ~1 us to ~34 s; lower buckets fold into the first, higher into +Inf.
constexpr size_t kFirstBucket = 9;
constexpr size_t kLastBucket = 34;
}  // namespace

CollectorLoadSource::CollectorLoadSource(std::unique_ptr<weft::load::LoadSource> backend)
    : backend_(std::move(backend)) {}

Result<LoadSnapshot> snapshot_from_counters(const std::string& source, const weft::load::LoadCounters& first,
                                            const weft::load::LoadCounters& previous,
                                            const weft::load::LoadCounters& now) {
  auto window = weft::load::compute_window(previous, now);
  if (!window) return wrap(window.error(), source + " load window");
  LoadSnapshot s;
  s.source = source;
  s.cpu = window->cpu;
  s.cpus = window->cpus;
  s.memory = window->memory;
  s.window_seconds = window->window_s;
  s.runq_latency_p99_s = window->runq_p99_s;
  if (now.reclaim_stall_ns && first.reclaim_stall_ns && *now.reclaim_stall_ns >= *first.reclaim_stall_ns)
    s.reclaim_stall_seconds_total = static_cast<double>(*now.reclaim_stall_ns - *first.reclaim_stall_ns) / 1e9;
  if (now.runq_buckets && first.runq_buckets) {
    auto delta = weft::load::bucket_delta(*first.runq_buckets, *now.runq_buckets);
    LatencyHistogram h;
    uint64_t running = 0;
    double sum = 0;
    for (size_t b = 0; b < delta.size(); ++b) {
      running += delta[b];
      // The exact sum is not kept in the kernel; bucket midpoints estimate it.
      sum += static_cast<double>(delta[b]) * (weft::load::bucket_lower_s(b) + weft::load::bucket_upper_s(b)) / 2;
      if (b >= kFirstBucket && b <= kLastBucket) {
        h.upper_bounds.push_back(weft::load::bucket_upper_s(b));
        h.cumulative_counts.push_back(running);
      }
    }
    h.count = running;
    h.sum_seconds = sum;
    s.runq_histogram = std::move(h);
  }
  nlohmann::json j = {{"source", source}, {"cpu", s.cpu}, {"cpus", s.cpus}, {"memory", s.memory},
                      {"window_s", s.window_seconds}};
  j["runq_latency_p99_s"] = s.runq_latency_p99_s ? nlohmann::json(*s.runq_latency_p99_s) : nlohmann::json(nullptr);
  j["reclaim_stall_s"] =
      window->reclaim_stall_s ? nlohmann::json(*window->reclaim_stall_s) : nlohmann::json(nullptr);
  s.json = std::move(j);
  return s;
}

Result<LoadSnapshot> CollectorLoadSource::sample() {
  auto now = backend_->read();
  if (!now) return wrap(now.error(), backend_->name() + " load counters");
  if (!previous_) {
    // The first call takes the baseline and a one-second window (as `weft-agent probe`
    // does), so the daemon has load values at once rather than a load interval later.
    first_ = now.value();
    previous_ = std::move(now.value());
    std::this_thread::sleep_for(std::chrono::seconds(1));
    now = backend_->read();
    if (!now) return wrap(now.error(), backend_->name() + " load counters");
  }
  auto s = snapshot_from_counters(backend_->name(), *first_, *previous_, *now);
  if (s) previous_ = std::move(now.value());
  return s;
}

}  // namespace weft::agent
