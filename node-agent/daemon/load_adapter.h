// The daemon's LoadSource over collectors/load: a load monitor reads the backend (the
// eBPF programs' counters, or procfs/PSI) every second in its own thread, and each
// sample() summarises its last window, with totals since the agent started for the
// cumulative metrics (run-queue histogram, reclaim stall seconds).
#pragma once

#include <chrono>
#include <memory>

#include "collectors/load/load.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

class CollectorLoadSource : public LoadSource {
 public:
  // monitor: started (weft::load::start_load_monitor); period: its reading period.
  CollectorLoadSource(std::unique_ptr<weft::load::LoadMonitor> monitor, std::chrono::milliseconds period)
      : sampler_(std::move(monitor)), period_(period) {}
  Result<LoadSnapshot> sample() override;

 private:
  std::unique_ptr<weft::load::LoadMonitor> sampler_;
  std::chrono::milliseconds period_;
  bool had_summary_ = false;
};

// The node's load from one source and its pods' usage from a load monitor following
// them: the demo's simulated nodes, whose load is their cgroup's (--load-cgroup).
// pod_cpu_scale converts the pods' measured cores into the cores the Node advertises
// (a simulated node owning 0.04 real cores and advertising 16 has scale 400), so pod
// usage and pod requests are in one unit for the descheduler.
class NodeLoadWithPods : public LoadSource {
 public:
  NodeLoadWithPods(std::unique_ptr<LoadSource> node, std::unique_ptr<weft::load::LoadMonitor> pods,
                   double pod_cpu_scale = 1)
      : node_(std::move(node)), pods_(std::move(pods)), pod_cpu_scale_(pod_cpu_scale) {}
  Result<LoadSnapshot> sample() override;

 private:
  std::unique_ptr<LoadSource> node_;
  std::unique_ptr<weft::load::LoadMonitor> pods_;
  double pod_cpu_scale_;
};

// Pure parts, for tests: the daemon's snapshot of a sampler summary, and its pods (unnamed).
LoadSnapshot snapshot_from_summary(const weft::load::LoadSummary& summary);
std::vector<PodLoad> pods_from_summary(const weft::load::LoadSummary& summary);

}  // namespace weft::agent
