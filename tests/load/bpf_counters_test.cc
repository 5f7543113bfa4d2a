#include "collectors/load/ebpf/bpf_counters.h"

#include <gtest/gtest.h>

namespace weft::load {
namespace {

weft_cpu_stats stats(uint64_t busy, uint64_t last, bool running, std::vector<uint8_t> slots = {}) {
  weft_cpu_stats s{};
  s.busy_ns = busy;
  s.last_switch_ns = last;
  s.running = running;
  s.nslots = static_cast<uint32_t>(slots.size());
  for (size_t i = 0; i < slots.size(); i++) s.slots[i] = slots[i];
  return s;
}

TEST(BpfCounters, AddsTheOpenIntervalOfARunningTask) {
  // cpu0 idle since 100; cpu1 has run a task since 400 without switching.
  std::vector<weft_cpu_stats> s = {stats(50, 100, false), stats(70, 400, true)};
  LoadCounters c;
  fill_counters(s, {0, 1}, {}, 1000, c);
  ASSERT_EQ(c.cpus.size(), 2u);
  EXPECT_EQ(c.cpus[0].busy_ns, 50u);
  EXPECT_EQ(c.cpus[1].busy_ns, 70u + 600u);
  EXPECT_EQ(c.cpus[1].total_ns, 1000u);
  EXPECT_EQ(c.at_ns, 1000);
}

TEST(BpfCounters, OpenIntervalOnTheRqClockIsMappedFromMonotonic) {
  // Switches timed by an rq clock running 5000 ns behind CLOCK_MONOTONIC.
  auto s = stats(70, 400, true, {2});
  s.calib_mono_ns = 5900;
  s.calib_rq_ns = 900;
  std::map<std::string, WatchedCgroupValues> cg;
  cg["/a"] = {2, {10}};
  LoadCounters c;
  fill_counters({s}, {0}, cg, 6000, c);  // rq clock now: 1000
  EXPECT_EQ(c.cpus[0].busy_ns, 70u + 600u);
  EXPECT_EQ(c.cpus[0].total_ns, 6000u);
  EXPECT_EQ(c.cgroup_busy_ns.at("/a"), 10u + 600u);
}

TEST(BpfCounters, NoSwitchSeenYetCountsNothing) {
  std::vector<weft_cpu_stats> s = {stats(0, 0, true)};
  LoadCounters c;
  fill_counters(s, {0}, {}, 1000, c);
  EXPECT_EQ(c.cpus[0].busy_ns, 0u);
}

TEST(BpfCounters, ReportsOnlyOnlineCpusButSumsHistogramsOfAll) {
  std::vector<weft_cpu_stats> s = {stats(1, 1, false), stats(2, 1, false), stats(3, 1, false)};
  s[0].runq[3] = 2;
  s[2].runq[3] = 5;
  s[0].runq_sum_ns = 20;
  s[2].runq_sum_ns = 50;
  s[1].reclaim_ns = 10;
  s[2].reclaim_ns = 20;
  LoadCounters c;
  fill_counters(s, {0, 2, 9}, {}, 10, c);
  ASSERT_EQ(c.cpus.size(), 2u);
  EXPECT_EQ(c.cpus[1].cpu, 2);
  EXPECT_EQ((*c.runq_buckets)[3], 7u);
  EXPECT_EQ(*c.runq_sum_ns, 70u);
  EXPECT_EQ(*c.reclaim_stall_ns, 30u);
}

TEST(BpfCounters, CgroupGetsItsClosedTimeAndTheOpenIntervalOfItsRunningTasks) {
  std::vector<weft_cpu_stats> s = {stats(0, 900, true, {3}), stats(0, 800, true, {1, 3}), stats(0, 0, false)};
  std::map<std::string, WatchedCgroupValues> cg;
  cg["/a"] = {3, {10, 20, 30}};
  cg["/b"] = {1, {0, 5, 0}};
  cg["/c"] = {2, {7, 7, 7}};
  LoadCounters c;
  fill_counters(s, {0, 1, 2}, cg, 1000, c);
  EXPECT_EQ(c.cgroup_busy_ns.at("/a"), 60u + 100u + 200u);
  EXPECT_EQ(c.cgroup_busy_ns.at("/b"), 5u + 200u);
  EXPECT_EQ(c.cgroup_busy_ns.at("/c"), 21u);
}

TEST(BpfCounters, TornOrChangedCopiesAreDetected) {
  std::vector<weft_cpu_stats> a = {stats(1, 1, false), stats(1, 1, false)};
  a[0].seq = 4;
  a[1].seq = 8;
  auto b = a;
  EXPECT_TRUE(same_generation(a, b));
  b[1].seq = 10;  // a switch happened on cpu1 between the copies
  EXPECT_FALSE(same_generation(a, b));
  auto odd = a;
  odd[0].seq = 5;  // copied in the middle of an update
  EXPECT_FALSE(same_generation(odd, odd));
}

}  // namespace
}  // namespace weft::load
