#include "kube/client/rate_limit.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace weft::kube {

TokenBucket::TokenBucket(double qps, int burst, Clock::time_point now)
    : qps_(qps), burst_(std::max(burst, 1)), tokens_(std::max(burst, 1)), last_(now) {}

Clock::duration TokenBucket::reserve(Clock::time_point now) {
  if (qps_ <= 0) return Clock::duration::zero();
  std::lock_guard lock(mu_);
  if (now > last_) {
    double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1.0;
  if (tokens_ >= 0) return Clock::duration::zero();
  // Negative tokens are reservations queued behind each other.
  auto wait = std::chrono::duration<double>(-tokens_ / qps_);
  return std::chrono::duration_cast<Clock::duration>(wait);
}

void TokenBucket::cancel_reservation() {
  if (qps_ <= 0) return;
  std::lock_guard lock(mu_);
  tokens_ = std::min<double>(burst_, tokens_ + 1.0);
}

Millis backoff_delay(const BackoffPolicy& p, int attempt, double u) {
  double base = static_cast<double>(p.initial.count()) * std::pow(p.factor, std::max(attempt, 0));
  base = std::min(base, static_cast<double>(p.max.count()));
  double stretched = base * (1.0 + p.jitter * std::clamp(u, 0.0, 1.0));
  return Millis(static_cast<int64_t>(stretched));
}

std::optional<Millis> parse_retry_after(const std::string& value, std::chrono::system_clock::time_point now) {
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (value.size() > 9) return std::nullopt;
    return Millis(std::stoll(value) * 1000);
  }
  std::tm tm{};
  if (!strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm)) return std::nullopt;
  auto at = std::chrono::system_clock::from_time_t(timegm(&tm));
  if (at <= now) return Millis(0);
  return std::chrono::duration_cast<Millis>(at - now);
}

Jitter::Jitter(uint64_t seed)
    : rng_(seed ? seed : static_cast<uint64_t>(Clock::now().time_since_epoch().count())) {}

double Jitter::next() {
  std::lock_guard lock(mu_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

}  // namespace weft::kube
