// Turns the per-CPU values the BPF programs keep into LoadCounters: adds the time the
// running task has spent since its last switch (a spinning task may not switch for the
// whole window) and checks that a copy was not torn by a concurrent update.
#pragma once

#include <linux/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collectors/load/counters.h"
#include "ebpf/load_types.h"

namespace weft::load {

struct WatchedCgroupValues {
  uint32_t slot = 0;
  std::vector<uint64_t> per_cpu_ns;  // cgroup_busy[slot] for every possible CPU
};

// True when no CPU was in the middle of an update in `first` and none changed until `second`.
bool same_generation(const std::vector<weft_cpu_stats>& first, const std::vector<weft_cpu_stats>& second);

// stats: one entry per possible CPU (index = CPU id); online: the CPUs to report;
// now_ns: CLOCK_MONOTONIC (bpf_ktime_get_ns's clock) taken after `stats` was copied.
void fill_counters(const std::vector<weft_cpu_stats>& stats, const std::vector<int>& online,
                   const std::map<std::string, WatchedCgroupValues>& cgroups, int64_t now_ns, LoadCounters& out);

}  // namespace weft::load
