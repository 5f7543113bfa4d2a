#include "collectors/load/ebpf/bpf_counters.h"

namespace weft::load {

namespace {

// Time the task on this CPU has run since its switch-in, not yet added by the program.
// now_ns is CLOCK_MONOTONIC; when the program times switches by the rq clock, the
// latest calibration pair maps it onto that clock.
uint64_t open_interval_ns(const weft_cpu_stats& s, int64_t now_ns) {
  if (!s.running || s.last_switch_ns == 0) return 0;
  auto now = static_cast<uint64_t>(now_ns);
  if (s.calib_mono_ns) now = now - s.calib_mono_ns + s.calib_rq_ns;
  return now > s.last_switch_ns ? now - s.last_switch_ns : 0;
}

bool slot_applies(const weft_cpu_stats& s, uint32_t slot) {
  for (uint32_t i = 0; i < s.nslots && i < WEFT_MAX_SLOTS; i++) {
    if (s.slots[i] == slot) return true;
  }
  return false;
}

}  // namespace

bool same_generation(const std::vector<weft_cpu_stats>& first, const std::vector<weft_cpu_stats>& second) {
  if (first.size() != second.size()) return false;
  for (size_t i = 0; i < first.size(); i++) {
    if (first[i].seq % 2 != 0 || first[i].seq != second[i].seq) return false;
  }
  return true;
}

void fill_counters(const std::vector<weft_cpu_stats>& stats, const std::vector<int>& online,
                   const std::map<std::string, WatchedCgroupValues>& cgroups, int64_t now_ns, LoadCounters& out) {
  out.at_ns = now_ns;
  out.cpus.clear();
  for (int cpu : online) {
    if (cpu < 0 || static_cast<size_t>(cpu) >= stats.size()) continue;
    const auto& s = stats[static_cast<size_t>(cpu)];
    out.cpus.push_back({cpu, s.busy_ns + open_interval_ns(s, now_ns), static_cast<uint64_t>(now_ns)});
  }

  std::vector<uint64_t> runq(WEFT_RUNQ_BUCKETS, 0);
  uint64_t reclaim = 0, runq_sum = 0;
  for (const auto& s : stats) {
    for (size_t b = 0; b < WEFT_RUNQ_BUCKETS; b++) runq[b] += s.runq[b];
    runq_sum += s.runq_sum_ns;
    reclaim += s.reclaim_ns;
  }
  out.runq_buckets = std::move(runq);
  out.runq_sum_ns = runq_sum;
  out.reclaim_stall_ns = reclaim;

  out.cgroup_busy_ns.clear();
  for (const auto& [path, values] : cgroups) {
    uint64_t total = 0;
    for (size_t cpu = 0; cpu < values.per_cpu_ns.size(); cpu++) {
      total += values.per_cpu_ns[cpu];
      if (cpu < stats.size() && slot_applies(stats[cpu], values.slot)) total += open_interval_ns(stats[cpu], now_ns);
    }
    out.cgroup_busy_ns[path] = total;
  }
}

}  // namespace weft::load
