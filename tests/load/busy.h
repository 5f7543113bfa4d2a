// Threads that keep CPUs busy until destroyed, for runtime tests and the bench.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

namespace weft::load::testing {

class BusyThreads {
 public:
  explicit BusyThreads(int n) {
    for (int i = 0; i < n; i++) {
      threads_.emplace_back([this] {
        volatile unsigned long spin = 0;
        while (!stop_.load(std::memory_order_relaxed)) spin = spin + 1;
      });
    }
  }
  ~BusyThreads() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace weft::load::testing
