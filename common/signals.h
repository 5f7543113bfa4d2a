// SIGTERM/SIGINT for the daemons: one thread takes them (sigwait), every other thread
// keeps them blocked, and the main loop sleeps on this object so a signal ends a sleep
// at once. Construct it in main before starting any thread (the mask is inherited).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <thread>

namespace weft {

class StopSignal {
 public:
  // Blocks SIGTERM and SIGINT in the calling thread and ignores SIGPIPE (a peer closing
  // a socket is an error return, not the end of the daemon).
  StopSignal();
  ~StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  void stop();                                  // as if signalled (a loop that is done)
  bool stopped() const { return stopped_.load(); }
  int signal() const { return signal_.load(); } // SIGTERM or SIGINT that stopped it; 0 otherwise
  void wake();                                  // re-checks the `until` of sleepers

  // Sleeps up to d, or until stopped or `until` returns true; true when not stopped.
  bool sleep_for(std::chrono::nanoseconds d, const std::function<bool()>& until = nullptr);
  // Blocks until stopped; returns signal().
  int wait();

  // In a forked child before exec: the blocked signals and ignored SIGPIPE would be
  // inherited by the new program, so unblock and restore them (async-signal-safe).
  static void reset_in_child();

 private:
  sigset_t set_{};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> closing_{false};
  std::atomic<int> signal_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread waiter_;
};

}  // namespace weft
