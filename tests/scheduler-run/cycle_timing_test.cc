// When `weft-scheduler run` starts its next cycle (scheduler/app/cycle_timing.h).
#include "scheduler/app/cycle_timing.h"

#include <gtest/gtest.h>

namespace weft::scheduler {
namespace {

using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

const Steady::time_point t0 = Steady::time_point() + std::chrono::hours(1);
const CycleTiming timing{milliseconds(1000), milliseconds(50)};

TEST(CycleTiming, EveryPeriodWhenNothingArrives) {
  const Arrivals none{0, {}};
  EXPECT_FALSE(cycle_due(timing, t0, none, t0 + milliseconds(999), none));
  EXPECT_TRUE(cycle_due(timing, t0, none, t0 + milliseconds(1000), none));
}

TEST(CycleTiming, EarlyOnceNewPendingPodsHaveStoppedArriving) {
  const Arrivals before{10, t0 - milliseconds(500)};
  const Arrivals burst{30, t0 + milliseconds(200)};
  EXPECT_FALSE(cycle_due(timing, t0, before, t0 + milliseconds(230), burst));
  EXPECT_TRUE(cycle_due(timing, t0, before, t0 + milliseconds(250), burst));
}

// A period's cycle in the middle of a burst would decide on part of a gang.
TEST(CycleTiming, APeriodsCycleWaitsForTheBurstToPauseButAtMostAnotherPeriod) {
  const Arrivals before{10, t0 - milliseconds(500)};
  EXPECT_FALSE(cycle_due(timing, t0, before, t0 + milliseconds(1300), Arrivals{500, t0 + milliseconds(1290)}));
  EXPECT_TRUE(cycle_due(timing, t0, before, t0 + milliseconds(1340), Arrivals{500, t0 + milliseconds(1290)}));
  // A stream that never pauses still gets a cycle every two periods.
  EXPECT_FALSE(cycle_due(timing, t0, before, t0 + milliseconds(1999), Arrivals{900, t0 + milliseconds(1990)}));
  EXPECT_TRUE(cycle_due(timing, t0, before, t0 + milliseconds(2000), Arrivals{901, t0 + milliseconds(1999)}));
}

TEST(CycleTiming, WithoutEarlyCyclesEveryPeriodWhateverArrives) {
  const CycleTiming fixed{milliseconds(1000), milliseconds(0)};
  const Arrivals before{0, {}}, arriving{5, t0 + milliseconds(999)};
  EXPECT_FALSE(cycle_due(fixed, t0, before, t0 + milliseconds(500), Arrivals{5, t0 + milliseconds(100)}));
  EXPECT_TRUE(cycle_due(fixed, t0, before, t0 + milliseconds(1000), arriving));
}

}  // namespace
}  // namespace weft::scheduler
