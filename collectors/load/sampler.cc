#include "collectors/load/sampler.h"

#include "collectors/load/cgroup.h"
#include "collectors/load/histogram.h"
#include "collectors/load/pods/pod_cgroups.h"
#include "collectors/load/pods/pod_usage.h"
#include "common/log.h"

namespace weft::load {

LoadSampler::LoadSampler(SelectedSource selected, SamplerOptions options, std::unique_ptr<PodTracker> pods)
    : source_(std::move(selected.source)),
      pod_tracker_(std::move(pods)),
      reason_(std::move(selected.reason)),
      options_(options) {}

Result<LoadCounters> LoadSampler::read_source() {
  if (!pod_tracker_) return source_->read();
  const bool changed = pod_tracker_->refresh(*source_);
  auto r = source_->read();
  if (!r) return r;
  r->pods = pod_tracker_->sample(*r);
  if (changed) {
    auto pods = pod_tracker_->pods();
    std::lock_guard lock(mu_);
    pods_ = std::move(pods);
  }
  return r;
}

LoadSampler::~LoadSampler() { stop(); }

Status LoadSampler::watch_cgroup(const std::string& path) { return source_->watch_cgroup(path); }

Status LoadSampler::start() {
  auto first = read_source();
  if (!first) return wrap(first.error(), "load sampler (" + source_->name() + ")");
  {
    std::lock_guard lock(mu_);
    first_ = *first;
    readings_.push_back(std::move(*first));
  }
  thread_ = std::thread([this] { loop(); });
  return {};
}

void LoadSampler::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LoadSampler::loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (cv_.wait_for(lock, options_.period, [this] { return stopping_; })) break;
    lock.unlock();
    take_reading();
    lock.lock();
  }
}

void LoadSampler::take_reading() {
  auto r = read_source();
  std::lock_guard lock(mu_);
  if (!r) {
    if (last_error_ != r.message()) log::warn("load sampler: {}", r.message());
    last_error_ = r.message();
    return;
  }
  last_error_.clear();
  readings_.push_back(std::move(*r));
  // Keep the oldest reading that still opens a window no longer than asked.
  const int64_t window_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.window).count();
  while (readings_.size() > 2 && readings_.back().at_ns - readings_[1].at_ns >= window_ns) readings_.pop_front();
}

std::optional<LoadSummary> LoadSampler::summary() const {
  std::lock_guard lock(mu_);
  if (readings_.size() < 2) return std::nullopt;
  auto w = compute_window(readings_.front(), readings_.back());
  if (!w) return std::nullopt;
  LoadSummary s;
  s.source = source_->name();
  s.source_reason = reason_;
  s.window = std::move(*w);
  double mem = 0;
  for (const auto& r : readings_) mem += memory_used_ratio(r.memory);
  s.memory_avg = mem / static_cast<double>(readings_.size());
  const auto& last = readings_.back();
  if (first_->runq_buckets && last.runq_buckets) s.runq_buckets_total = bucket_delta(*first_->runq_buckets, *last.runq_buckets);
  if (first_->runq_sum_ns && last.runq_sum_ns && *last.runq_sum_ns >= *first_->runq_sum_ns) {
    s.runq_sum_seconds_total = static_cast<double>(*last.runq_sum_ns - *first_->runq_sum_ns) * 1e-9;
  }
  if (first_->reclaim_stall_ns && last.reclaim_stall_ns && *last.reclaim_stall_ns >= *first_->reclaim_stall_ns) {
    s.reclaim_stall_seconds_total = static_cast<double>(*last.reclaim_stall_ns - *first_->reclaim_stall_ns) * 1e-9;
  }
  s.at = std::chrono::system_clock::now();
  if (pod_tracker_) s.pods = compute_pod_usage(readings_, pods_);
  return s;
}

std::string LoadSampler::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

Result<std::unique_ptr<LoadMonitor>> start_load_monitor(const MonitorOptions& options, std::string* why) {
  auto backend = parse_backend(options.backend);
  if (!backend) return backend.error();
  auto selected = select_source(*backend, host_factories());
  if (!selected) return selected.error();
  if (why) *why = selected->reason;
  std::unique_ptr<PodTracker> pods;
  if (options.pods) {
    auto files = std::make_unique<HostFiles>();
    auto mounts = files->read("/proc/self/mounts");
    if (!mounts) return wrap(mounts.error(), "pods");
    auto v2 = parse_cgroup2_mount(*mounts);
    if (!v2) return wrap(v2.error(), "pods");
    auto v1_memory = parse_cgroup1_mount(*mounts, "memory");
    PodTrackerOptions o{options.pod_roots.empty() ? kubelet_pod_roots(*v2) : options.pod_roots, *v2,
                        v1_memory ? *v1_memory : ""};
    pods = std::make_unique<PodTracker>(std::move(files), std::move(o));
  }
  auto sampler = std::make_unique<LoadSampler>(std::move(*selected), options.sampling, std::move(pods));
  if (auto s = sampler->start(); !s) return s.error();
  return std::unique_ptr<LoadMonitor>(std::move(sampler));
}

}  // namespace weft::load
