// Ratios over a window: the difference of two LoadCounters readings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/load/counters.h"
#include "common/result.h"

namespace weft::load {

struct LoadWindow {
  double window_s = 0;
  double cpu = 0;                              // node busy ratio 0..1 (all online CPUs)
  std::vector<double> cpus;                    // per CPU, in LoadCounters::cpus order
  std::map<std::string, double> cgroups;       // cgroup busy as a share of the node's CPU time 0..1
  double memory = 0;                           // (MemTotal - MemAvailable) / MemTotal at the end
  std::optional<std::vector<uint64_t>> runq_buckets;  // waits counted in the window
  std::optional<double> runq_p50_s;
  std::optional<double> runq_p99_s;
  std::optional<double> reclaim_stall_s;       // stall time in the window
  std::optional<double> cpu_pressure_some;     // share of the window some task waited for CPU
  std::optional<double> cpu_sample_hz;         // busy ratios estimated from samples at this rate (ebpf sampled)
  // Share of the window in which run-queue waits were recorded: 1 when always, less
  // when the histogram is a sample (duty cycle); unset without run-queue data.
  std::optional<double> runq_observed_share;
};

double memory_used_ratio(const MemoryInfo& m);

// Errors when the readings cannot be compared (no time passed, CPU sets differ).
Result<LoadWindow> compute_window(const LoadCounters& before, const LoadCounters& after);

}  // namespace weft::load
