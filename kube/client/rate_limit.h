// Client-side flow control: a QPS/burst token bucket and exponential backoff with
// jitter. Both are plain arithmetic over times handed in, so tests need no sleeping.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>

namespace weft::kube {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

// Tokens refill at qps per second up to burst. reserve() takes one token and says how
// long the caller must wait before using it (0 when one was available).
class TokenBucket {
 public:
  TokenBucket(double qps, int burst, Clock::time_point now = Clock::now());
  // qps <= 0 disables limiting.
  Clock::duration reserve(Clock::time_point now);
  // Gives back a reservation the caller will not use (its deadline would pass first).
  void cancel_reservation();
  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  std::mutex mu_;
  double qps_;
  int burst_;
  double tokens_;
  Clock::time_point last_;
};

struct BackoffPolicy {
  Millis initial{200};
  double factor = 2.0;
  Millis max{10000};
  double jitter = 0.5;   // the delay is stretched by a random 0..jitter fraction
};

// Delay before retry number `attempt` (0 for the first retry): min(max, initial*factor^attempt),
// stretched by jitter*u with u in [0,1). Never above max*(1+jitter).
Millis backoff_delay(const BackoffPolicy& policy, int attempt, double u);

// Retry-After as seconds ("3") or an HTTP date; nullopt when absent or unreadable.
std::optional<Millis> parse_retry_after(const std::string& value,
                                        std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// Uniform [0,1) source for jitter; one per client, seeded from the clock unless given.
class Jitter {
 public:
  explicit Jitter(uint64_t seed = 0);
  double next();

 private:
  std::mutex mu_;
  std::mt19937_64 rng_;
};

}  // namespace weft::kube
