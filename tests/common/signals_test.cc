// StopSignal (common/signals.h): a SIGTERM or SIGINT ends a sleep at once and says which.
#include <gtest/gtest.h>

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>

#include "common/signals.h"

namespace weft {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(StopSignal, SigtermEndsASleepAtOnce) {
  StopSignal stop;
  EXPECT_FALSE(stop.stopped());
  std::thread sender([] {
    std::this_thread::sleep_for(50ms);
    ::kill(::getpid(), SIGTERM);   // process-directed, as from kubelet
  });
  const auto start = Clock::now();
  EXPECT_FALSE(stop.sleep_for(30s));
  EXPECT_LT(Clock::now() - start, 5s);
  sender.join();
  EXPECT_TRUE(stop.stopped());
  EXPECT_EQ(stop.signal(), SIGTERM);
  EXPECT_EQ(stop.wait(), SIGTERM);
}

TEST(StopSignal, SigintToo) {
  StopSignal stop;
  ::kill(::getpid(), SIGINT);
  EXPECT_EQ(stop.wait(), SIGINT);
}

TEST(StopSignal, StopAndWakeWithoutASignal) {
  StopSignal stop;
  std::atomic<bool> ready{false};
  std::thread t([&] {
    std::this_thread::sleep_for(20ms);
    ready = true;   // read under the lock by sleep_for's predicate after wake()
    stop.wake();
  });
  EXPECT_TRUE(stop.sleep_for(30s, [&] { return ready.load(); }));
  t.join();
  EXPECT_TRUE(stop.sleep_for(1ms));
  stop.stop();
  EXPECT_FALSE(stop.sleep_for(30s));
  EXPECT_EQ(stop.signal(), 0);
}

// The destructor's own wake-up of the waiter is not a stop, and a second object works.
TEST(StopSignal, DestroyedWithoutSignalThenReused) {
  { StopSignal first; }
  StopSignal second;
  EXPECT_FALSE(second.stopped());
  ::kill(::getpid(), SIGTERM);
  EXPECT_EQ(second.wait(), SIGTERM);
}

// A child started while a StopSignal exists gets default signal handling back, so a
// program it execs dies on SIGTERM.
TEST(StopSignal, ChildGetsDefaultsBack) {
  StopSignal stop;
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    StopSignal::reset_in_child();
    ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(100ms);
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(stop.stopped());
}

}  // namespace
}  // namespace weft
