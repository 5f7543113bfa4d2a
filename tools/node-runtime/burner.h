// A process that burns a given share of one CPU, duty-cycled: in every period it spins
// until it has used share x period of CPU time (its own thread CPU clock, so a busy
// machine cannot make it overshoot) or the period is over, then sleeps.
#pragma once

#include <chrono>
#include <string>

#include "common/result.h"
#include "common/signals.h"

namespace weft::noderuntime {

struct BurnOptions {
  double cores = 0.1;                             // 0..1
  std::chrono::milliseconds period{100};
  std::string cgroup;                             // join this cgroup v2 group first ("" = stay)
};

// Moves the calling process into a cgroup v2 group (writes 0 to cgroup.procs).
Status join_cgroup(const std::string& dir);

// Runs until stopped. Errors for a bad share or a group it cannot join.
Status burn(const BurnOptions& options, const StopSignal& stop);

}  // namespace weft::noderuntime
