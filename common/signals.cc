#include "common/signals.h"

#include <pthread.h>

namespace weft {

StopSignal::StopSignal() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  waiter_ = std::thread([this] {
    int sig = 0;
    sigwait(&set_, &sig);
    // The destructor wakes this thread with a SIGTERM of its own; that is no request to stop.
    if (closing_.load()) return;
    signal_.store(sig);
    stop();
  });
}

StopSignal::~StopSignal() {
  closing_.store(true);
  pthread_kill(waiter_.native_handle(), SIGTERM);
  waiter_.join();
}

void StopSignal::stop() {
  {
    std::lock_guard lock(mu_);
    stopped_.store(true);
  }
  cv_.notify_all();
}

void StopSignal::wake() {
  { std::lock_guard lock(mu_); }
  cv_.notify_all();
}

bool StopSignal::sleep_for(std::chrono::nanoseconds d, const std::function<bool()>& until) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, d, [&] { return stopped_.load() || (until && until()); });
  return !stopped_.load();
}

int StopSignal::wait() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopped_.load(); });
  return signal_.load();
}

void StopSignal::reset_in_child() {
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
  std::signal(SIGPIPE, SIG_DFL);
}

}  // namespace weft
