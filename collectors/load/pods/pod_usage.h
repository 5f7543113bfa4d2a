// Each pod's CPU cores and working set over a window of readings (pure).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "collectors/load/counters.h"
#include "collectors/load/load.h"

namespace weft::load {

// For every pod in the last reading: its CPU time from the first reading of the window
// that has it (counted the same way) to the last, over that time in cores; its working
// set averaged over the readings that have one. A pod in the last reading only has no
// window yet and is left out, as is one missing from `pods`. Readings oldest first.
std::vector<PodUsage> compute_pod_usage(const std::deque<LoadCounters>& readings,
                                        const std::map<uint32_t, PodCgroup>& pods);

}  // namespace weft::load
