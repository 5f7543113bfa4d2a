// Raw cumulative counters read from the kernel at one instant. A window is the
// difference of two readings (window.h); nothing here is a ratio yet.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace weft::load {

struct CpuCounter {
  int cpu = 0;
  uint64_t busy_ns = 0;   // time not idle
  uint64_t total_ns = 0;  // time accounted in all (busy + idle); a wall clock for ebpf
  uint64_t steal_ns = 0;  // procfs: the hypervisor's steal, inside busy_ns (the programs never see it)
};

struct MemoryInfo {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
};

// One pod's group at a reading (pods/pod_tracker.h): its id in the tracker, cumulative
// CPU time (the backend's own cgroup count, or cpu.stat) and working set.
struct PodSample {
  uint32_t id = 0;
  uint64_t cpu_ns = 0;
  bool cpu_from_backend = false;
  std::optional<uint64_t> memory_bytes;  // unset without a memory controller on the group
};

struct LoadCounters {
  int64_t at_ns = 0;                                  // CLOCK_MONOTONIC of the reading
  std::vector<CpuCounter> cpus;                       // online CPUs, ascending
  std::map<std::string, uint64_t> cgroup_busy_ns;     // watched cgroup path -> CPU time, with descendants
  std::optional<std::vector<uint64_t>> runq_buckets;  // log2(ns) run-queue wait counts (ebpf only)
  std::optional<uint64_t> runq_sum_ns;                // exact sum of those waits (ebpf only)
  std::optional<uint64_t> reclaim_stall_ns;           // direct reclaim (ebpf) or memory PSI "some" (procfs)
  std::optional<uint64_t> cpu_pressure_some_ns;       // /proc/pressure/cpu "some" total, when PSI is on
  MemoryInfo memory;
  // Set when CPU and cgroup busy times are estimates from samples at this rate per CPU
  // (ebpf sampled mode); unset when exact.
  std::optional<double> cpu_sample_hz;
  // Cumulative time run-queue waits were recorded, when that is only part of the time
  // (ebpf sampled mode: a duty cycle); unset when they are recorded all the time.
  std::optional<uint64_t> runq_observed_ns;
  std::vector<PodSample> pods;  // ascending by id; filled by the sampler when it tracks pods
};

int64_t monotonic_now_ns();

}  // namespace weft::load
