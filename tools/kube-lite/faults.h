// --fail-rate/--latency: a seeded, deterministic source of injected 500s and 429s
// (with Retry-After) for non-watch requests.
#pragma once

#include <mutex>
#include <optional>
#include <random>

#include "tools/kube-lite/registry.h"

namespace weft::kube_lite {

class FaultInjector {
 public:
  FaultInjector(double fail_rate, int retry_after_seconds, uint64_t seed);
  std::optional<Reply> maybe_fail();
  double rate() const { return rate_; }

 private:
  double rate_;
  int retry_after_;
  std::mutex mu_;
  std::mt19937_64 rng_;
};

}  // namespace weft::kube_lite
