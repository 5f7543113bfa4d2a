// When `weft-scheduler run` starts its next cycle: every --period, sooner once new
// pending pods have stopped arriving for --early-cycle-after (a gang's last member is
// placed without waiting out the period), and a period's cycle put off while they are
// still arriving, by at most one more period: a cycle that snapshots in the middle of a
// burst of creates decides on part of a job's gang (which then waits for the next
// cycle), and its snapshot takes CPU from the API server serving those creates.
#pragma once

#include <chrono>
#include <cstdint>

namespace weft::scheduler {

struct CycleTiming {
  std::chrono::milliseconds period{1000};
  std::chrono::milliseconds early_cycle_after{0};   // 0: every period only, never put off
};

// What the cache says of pending pods: how many have arrived, and when the last did.
struct Arrivals {
  uint64_t count = 0;
  std::chrono::steady_clock::time_point last{};
};

// Whether a cycle may start at `now`, the last one having started at `started` when
// `at_start` had arrived.
bool cycle_due(const CycleTiming& timing, std::chrono::steady_clock::time_point started, const Arrivals& at_start,
               std::chrono::steady_clock::time_point now, const Arrivals& current);

}  // namespace weft::scheduler
