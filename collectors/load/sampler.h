// Long-running sampling for the agent daemon: started once, it reads the source every
// period and keeps the readings of the last window; summary() can be called at any
// time from any thread (e.g. by the /metrics handler).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collectors/load/select.h"
#include "collectors/load/window.h"

namespace weft::load {

struct SamplerOptions {
  std::chrono::milliseconds period{1000};
  std::chrono::milliseconds window{60000};
};

struct LoadSummary {
  std::string source;         // "ebpf" or "procfs"
  std::string source_reason;
  LoadWindow window;          // CPU, cgroups, runq quantiles, reclaim over the last window
  double memory_avg = 0;      // memory used ratio averaged over the window's readings
  std::vector<uint64_t> runq_buckets_total;           // since start, log2(ns) buckets; empty for procfs
  std::optional<double> runq_sum_seconds_total;       // since start, exact sum of those waits
  std::optional<double> reclaim_stall_seconds_total;  // since start
  std::chrono::system_clock::time_point at;
};

class LoadSampler {
 public:
  LoadSampler(SelectedSource selected, SamplerOptions options);
  ~LoadSampler();
  LoadSampler(const LoadSampler&) = delete;
  LoadSampler& operator=(const LoadSampler&) = delete;

  // Before start(): adds a cgroup to every summary.
  Status watch_cgroup(const std::string& path);
  // Takes the first reading (errors are returned) and starts the sampling thread.
  Status start();
  void stop();
  // nullopt until two readings exist.
  std::optional<LoadSummary> summary() const;
  // The last read error, "" when the last read worked.
  std::string last_error() const;

 private:
  struct Reading {
    LoadCounters counters;
  };
  void loop();
  void take_reading();

  std::unique_ptr<LoadSource> source_;
  std::string reason_;
  SamplerOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::deque<LoadCounters> readings_;
  std::optional<LoadCounters> first_;
  std::string last_error_;
  std::thread thread_;
};

}  // namespace weft::load
