#include "collectors/load/ebpf/duty_cycle.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "collectors/load/counters.h"

namespace weft::load {
namespace {

using namespace std::chrono_literals;

struct Switch {
  std::atomic<int> ons{0}, offs{0};
  std::atomic<bool> is_on{false};
  std::atomic<bool> fail{false};
  DutyCycle make(std::chrono::milliseconds on, std::chrono::milliseconds period) {
    return DutyCycle(
        [this]() -> Status {
          if (fail) return make_error("attach refused");
          ons++;
          is_on = true;
          return {};
        },
        [this] {
          offs++;
          is_on = false;
        },
        on, period);
  }
};

// Polls until pred holds or the deadline passes.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds deadline = 5s) {
  auto end = std::chrono::steady_clock::now() + deadline;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(DutyCycle, SwitchesOnAndOffAndCountsTheOnTime) {
  Switch s;
  auto cycle = s.make(10ms, 40ms);
  const int64_t t0 = monotonic_now_ns();
  ASSERT_TRUE(cycle.start());
  EXPECT_TRUE(s.is_on);  // on at once
  EXPECT_DOUBLE_EQ(cycle.share(), 0.25);
  ASSERT_TRUE(eventually([&] { return s.ons >= 3; })) << "only " << s.ons << " on phases";
  cycle.stop();
  const int64_t elapsed = monotonic_now_ns() - t0;
  EXPECT_FALSE(s.is_on);
  EXPECT_EQ(s.ons.load(), s.offs.load());
  const uint64_t on = cycle.on_ns(monotonic_now_ns());
  // Phases keep their period's schedule, so on a loaded machine a late switch shortens the
  // phase after it: count one whole phase's worth, not two.
  EXPECT_GE(on, 10000000u);
  EXPECT_LT(on, static_cast<uint64_t>(elapsed));
  // Stopped: the on time no longer grows.
  EXPECT_EQ(cycle.on_ns(monotonic_now_ns() + 1000000000), on);
}

TEST(DutyCycle, OnForAWholePeriodMeansAlwaysOn) {
  Switch s;
  auto cycle = s.make(1000ms, 1000ms);
  const int64_t t0 = monotonic_now_ns();
  ASSERT_TRUE(cycle.start());
  std::this_thread::sleep_for(30ms);
  const int64_t t1 = monotonic_now_ns();
  EXPECT_TRUE(s.is_on);
  EXPECT_EQ(s.ons.load(), 1);
  EXPECT_EQ(s.offs.load(), 0);
  EXPECT_NEAR(static_cast<double>(cycle.on_ns(t1)), static_cast<double>(t1 - t0), 5e6);
  cycle.stop();
  EXPECT_EQ(s.offs.load(), 1);
}

TEST(DutyCycle, AFailedFirstSwitchOnIsReturnedAndNothingRuns) {
  Switch s;
  s.fail = true;
  auto cycle = s.make(10ms, 40ms);
  auto st = cycle.start();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(), "attach refused");
  cycle.stop();
  EXPECT_EQ(s.offs.load(), 0);
  EXPECT_EQ(cycle.on_ns(monotonic_now_ns()), 0u);
}

TEST(DutyCycle, ALaterFailureIsKeptAndRetried) {
  Switch s;
  auto cycle = s.make(5ms, 20ms);
  ASSERT_TRUE(cycle.start());
  s.fail = true;
  ASSERT_TRUE(eventually([&] { return cycle.last_error() == "attach refused"; }));
  s.fail = false;
  const int ons = s.ons;
  ASSERT_TRUE(eventually([&] { return s.ons > ons && cycle.last_error().empty(); }));
  cycle.stop();
  EXPECT_EQ(s.ons.load(), s.offs.load());
}

}  // namespace
}  // namespace weft::load
