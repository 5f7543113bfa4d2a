#include "collectors/load/pods/pod_usage.h"

#include <algorithm>

namespace weft::load {

namespace {

const PodSample* find_sample(const LoadCounters& reading, uint32_t id) {
  auto it = std::lower_bound(reading.pods.begin(), reading.pods.end(), id,
                             [](const PodSample& s, uint32_t want) { return s.id < want; });
  return it != reading.pods.end() && it->id == id ? &*it : nullptr;
}

}  // namespace

std::vector<PodUsage> compute_pod_usage(const std::deque<LoadCounters>& readings,
                                        const std::map<uint32_t, PodCgroup>& pods) {
  std::vector<PodUsage> out;
  if (readings.size() < 2) return out;
  const LoadCounters& last = readings.back();
  for (const PodSample& now : last.pods) {
    auto pod = pods.find(now.id);
    if (pod == pods.end()) continue;
    const LoadCounters* opening = nullptr;
    const PodSample* start = nullptr;
    double memory_sum = 0;
    int memory_n = 0;
    for (const auto& r : readings) {
      const PodSample* s = find_sample(r, now.id);
      if (!s) continue;
      if (!start && s->cpu_from_backend == now.cpu_from_backend && r.at_ns < last.at_ns) {
        opening = &r;
        start = s;
      }
      if (s->memory_bytes) {
        memory_sum += static_cast<double>(*s->memory_bytes);
        memory_n++;
      }
    }
    if (!start) continue;
    PodUsage u;
    u.cgroup = pod->second;
    u.window_s = static_cast<double>(last.at_ns - opening->at_ns) * 1e-9;
    const uint64_t cpu = now.cpu_ns > start->cpu_ns ? now.cpu_ns - start->cpu_ns : 0;
    u.cpu_cores = static_cast<double>(cpu) * 1e-9 / u.window_s;
    if (memory_n) u.memory_bytes = memory_sum / memory_n;
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace weft::load
