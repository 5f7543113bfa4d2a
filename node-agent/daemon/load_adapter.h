// The daemon's LoadSource over collectors/load: a LoadSampler reads the backend (the
// eBPF programs' counters, or procfs/PSI) every second in its own thread, and each
// sample() summarises its last window, with totals since the agent started for the
// cumulative metrics (run-queue histogram, reclaim stall seconds).
#pragma once

#include <chrono>
#include <memory>

#include "collectors/load/sampler.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

class CollectorLoadSource : public LoadSource {
 public:
  // Starts sampling at once; errors when the backend's first reading fails.
  static Result<std::unique_ptr<CollectorLoadSource>> start(weft::load::SelectedSource selected,
                                                            weft::load::SamplerOptions options);
  Result<LoadSnapshot> sample() override;

 private:
  CollectorLoadSource(std::unique_ptr<weft::load::LoadSampler> sampler, std::chrono::milliseconds period)
      : sampler_(std::move(sampler)), period_(period) {}
  std::unique_ptr<weft::load::LoadSampler> sampler_;
  std::chrono::milliseconds period_;
  bool had_summary_ = false;
};

// Pure part, for tests: the daemon's snapshot of a sampler summary.
LoadSnapshot snapshot_from_summary(const weft::load::LoadSummary& summary);

}  // namespace weft::agent
