#include "scheduler/app/cycle_timing.h"

namespace weft::scheduler {

bool cycle_due(const CycleTiming& timing, std::chrono::steady_clock::time_point started, const Arrivals& at_start,
               std::chrono::steady_clock::time_point now, const Arrivals& current) {
  const bool watching_arrivals = timing.early_cycle_after.count() > 0;
  const bool quiet = now - current.last >= timing.early_cycle_after;
  if (watching_arrivals && current.count != at_start.count && quiet) return true;
  if (now < started + timing.period) return false;
  return !watching_arrivals || quiet || now >= started + 2 * timing.period;
}

}  // namespace weft::scheduler
