// Switches something on for `on` out of every `period` from a thread of its own, and
// keeps how long it was on in total (to mark what it recorded as sampled).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/result.h"

namespace weft::load {

class DutyCycle {
 public:
  // on(): switch on (errors are kept and retried next period); off(): switch off.
  DutyCycle(std::function<Status()> on, std::function<void()> off, std::chrono::milliseconds on_time,
            std::chrono::milliseconds period);
  ~DutyCycle();
  DutyCycle(const DutyCycle&) = delete;
  DutyCycle& operator=(const DutyCycle&) = delete;

  // Switches on now (an error is returned and nothing is started) and starts the cycle;
  // with on_time >= period it just stays on.
  Status start();
  // Switches off and stops the thread; also done by the destructor.
  void stop();
  // CLOCK_MONOTONIC nanoseconds it has been on since start(), up to now_ns.
  uint64_t on_ns(int64_t now_ns) const;
  double share() const;  // on_time / period, at most 1
  std::string last_error() const;

 private:
  void loop();
  void switch_off_locked(int64_t now_ns);

  std::function<Status()> on_;
  std::function<void()> off_;
  std::chrono::milliseconds on_time_, period_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool is_on_ = false;
  int64_t on_since_ns_ = 0;
  uint64_t on_total_ns_ = 0;
  std::string last_error_;
  std::thread thread_;
};

}  // namespace weft::load
