#include "collectors/load/ebpf/duty_cycle.h"

#include <algorithm>

#include "collectors/load/counters.h"
#include "common/log.h"

namespace weft::load {

DutyCycle::DutyCycle(std::function<Status()> on, std::function<void()> off, std::chrono::milliseconds on_time,
                     std::chrono::milliseconds period)
    : on_(std::move(on)), off_(std::move(off)), on_time_(on_time), period_(period) {}

DutyCycle::~DutyCycle() { stop(); }

Status DutyCycle::start() {
  std::lock_guard lock(mu_);
  if (is_on_ || thread_.joinable()) return {};
  if (auto st = on_(); !st) return st;
  is_on_ = true;
  on_since_ns_ = monotonic_now_ns();
  stopping_ = false;
  if (on_time_ < period_) thread_ = std::thread([this] { loop(); });
  return {};
}

void DutyCycle::switch_off_locked(int64_t now_ns) {
  if (!is_on_) return;
  off_();
  is_on_ = false;
  if (now_ns > on_since_ns_) on_total_ns_ += static_cast<uint64_t>(now_ns - on_since_ns_);
}

void DutyCycle::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  switch_off_locked(monotonic_now_ns());
}

void DutyCycle::loop() {
  std::unique_lock lock(mu_);
  // Phases are laid on a fixed grid from the first switch-on, so a slow on()/off()
  // does not stretch the period.
  auto phase_start = std::chrono::steady_clock::now();
  while (!stopping_) {
    if (cv_.wait_until(lock, phase_start + on_time_, [this] { return stopping_; })) break;
    switch_off_locked(monotonic_now_ns());
    phase_start += period_;
    if (cv_.wait_until(lock, phase_start, [this] { return stopping_; })) break;
    if (auto st = on_(); !st) {
      if (last_error_ != st.message()) log::warn("load: switching the run-queue program on: {}", st.message());
      last_error_ = st.message();
      continue;
    }
    last_error_.clear();
    is_on_ = true;
    on_since_ns_ = monotonic_now_ns();
  }
}

uint64_t DutyCycle::on_ns(int64_t now_ns) const {
  std::lock_guard lock(mu_);
  uint64_t total = on_total_ns_;
  if (is_on_ && now_ns > on_since_ns_) total += static_cast<uint64_t>(now_ns - on_since_ns_);
  return total;
}

double DutyCycle::share() const {
  if (period_.count() <= 0) return 1.0;
  return std::min(1.0, static_cast<double>(on_time_.count()) / static_cast<double>(period_.count()));
}

std::string DutyCycle::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace weft::load
