#include "collectors/load/window.h"

#include <algorithm>

#include "collectors/load/histogram.h"

namespace weft::load {

namespace {

uint64_t delta(uint64_t before, uint64_t after) { return after >= before ? after - before : 0; }

double clamp01(double v) { return std::clamp(v, 0.0, 1.0); }

}  // namespace

double memory_used_ratio(const MemoryInfo& m) {
  if (m.total_bytes == 0) return 0;
  uint64_t used = m.total_bytes > m.available_bytes ? m.total_bytes - m.available_bytes : 0;
  return clamp01(static_cast<double>(used) / static_cast<double>(m.total_bytes));
}

Result<LoadWindow> compute_window(const LoadCounters& before, const LoadCounters& after) {
  if (after.at_ns <= before.at_ns) {
    return make_error("load window: readings are not in time order (" + std::to_string(before.at_ns) +
                      " ns, then " + std::to_string(after.at_ns) + " ns)");
  }
  if (before.cpus.size() != after.cpus.size()) {
    return make_error("load window: the set of online CPUs changed (" + std::to_string(before.cpus.size()) +
                      " -> " + std::to_string(after.cpus.size()) + "); take a new window");
  }
  LoadWindow w;
  const double wall_ns = static_cast<double>(after.at_ns - before.at_ns);
  w.window_s = wall_ns * 1e-9;

  uint64_t busy_sum = 0, total_sum = 0;
  for (size_t i = 0; i < after.cpus.size(); i++) {
    if (before.cpus[i].cpu != after.cpus[i].cpu) {
      return make_error("load window: CPU " + std::to_string(before.cpus[i].cpu) + " replaced by CPU " +
                        std::to_string(after.cpus[i].cpu));
    }
    uint64_t busy = delta(before.cpus[i].busy_ns, after.cpus[i].busy_ns);
    uint64_t total = delta(before.cpus[i].total_ns, after.cpus[i].total_ns);
    busy = std::min(busy, total);
    busy_sum += busy;
    total_sum += total;
    w.cpus.push_back(total ? static_cast<double>(busy) / static_cast<double>(total) : 0.0);
  }
  w.cpu = total_sum ? static_cast<double>(busy_sum) / static_cast<double>(total_sum) : 0.0;

  const double capacity_ns = wall_ns * static_cast<double>(std::max<size_t>(after.cpus.size(), 1));
  for (const auto& [path, busy_after] : after.cgroup_busy_ns) {
    auto it = before.cgroup_busy_ns.find(path);
    if (it == before.cgroup_busy_ns.end()) continue;  // watched only since this window began
    w.cgroups[path] = clamp01(static_cast<double>(delta(it->second, busy_after)) / capacity_ns);
  }

  w.memory = memory_used_ratio(after.memory);

  if (before.runq_buckets && after.runq_buckets) {
    w.runq_buckets = bucket_delta(*before.runq_buckets, *after.runq_buckets);
    w.runq_p50_s = quantile_s(*w.runq_buckets, 0.50);
    w.runq_p99_s = quantile_s(*w.runq_buckets, 0.99);
    w.runq_observed_share = 1.0;
    if (before.runq_observed_ns && after.runq_observed_ns) {
      w.runq_observed_share = clamp01(static_cast<double>(delta(*before.runq_observed_ns, *after.runq_observed_ns)) / wall_ns);
    }
  }
  w.cpu_sample_hz = after.cpu_sample_hz;
  if (before.reclaim_stall_ns && after.reclaim_stall_ns) {
    w.reclaim_stall_s = static_cast<double>(delta(*before.reclaim_stall_ns, *after.reclaim_stall_ns)) * 1e-9;
  }
  if (before.cpu_pressure_some_ns && after.cpu_pressure_some_ns) {
    w.cpu_pressure_some =
        clamp01(static_cast<double>(delta(*before.cpu_pressure_some_ns, *after.cpu_pressure_some_ns)) / wall_ns);
  }
  return w;
}

}  // namespace weft::load
