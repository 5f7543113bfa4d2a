#include "tools/kube-lite/faults.h"

namespace weft::kube_lite {

FaultInjector::FaultInjector(double fail_rate, int retry_after_seconds, uint64_t seed)
    : rate_(fail_rate), retry_after_(retry_after_seconds), rng_(seed) {}

std::optional<Reply> FaultInjector::maybe_fail() {
  if (rate_ <= 0) return std::nullopt;
  bool fail, overload;
  {
    std::lock_guard lock(mu_);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    fail = u(rng_) < rate_;
    overload = (rng_() & 1) != 0;
  }
  if (!fail) return std::nullopt;
  if (!overload) return error_reply(internal_error("injected fault (kube-lite --fail-rate)"));
  Reply r = error_reply(too_many_requests("Too many requests, please try again later. (injected by kube-lite --fail-rate)",
                                          retry_after_));
  r.retry_after = std::to_string(retry_after_);
  return r;
}

}  // namespace weft::kube_lite
