#include "collectors/load/window.h"

#include <gtest/gtest.h>

#include "collectors/load/histogram.h"

namespace weft::load {
namespace {

LoadCounters reading(int64_t at_s, std::vector<std::pair<uint64_t, uint64_t>> busy_total_ms) {
  LoadCounters c;
  c.at_ns = at_s * 1000000000LL;
  int cpu = 0;
  for (auto [busy, total] : busy_total_ms) c.cpus.push_back({cpu++, busy * 1000000, total * 1000000});
  c.memory = {1000, 250};
  return c;
}

TEST(Window, NodeAndPerCpuBusyRatios) {
  auto a = reading(10, {{1000, 10000}, {5000, 10000}});
  auto b = reading(12, {{1500, 12000}, {7000, 12000}});  // cpu0 25 %, cpu1 100 %
  auto w = compute_window(a, b);
  ASSERT_TRUE(w) << w.message();
  EXPECT_DOUBLE_EQ(w->window_s, 2.0);
  ASSERT_EQ(w->cpus.size(), 2u);
  EXPECT_DOUBLE_EQ(w->cpus[0], 0.25);
  EXPECT_DOUBLE_EQ(w->cpus[1], 1.0);
  EXPECT_DOUBLE_EQ(w->cpu, 0.625);
  EXPECT_DOUBLE_EQ(w->memory, 0.75);
}

TEST(Window, BusyNeverExceedsTotal) {
  auto a = reading(1, {{0, 0}});
  auto b = reading(2, {{1200, 1000}});
  auto w = compute_window(a, b);
  ASSERT_TRUE(w);
  EXPECT_DOUBLE_EQ(w->cpu, 1.0);
}

TEST(Window, CgroupIsShareOfNodeCapacity) {
  auto a = reading(0, {{0, 0}, {0, 0}});
  auto b = reading(4, {{4000, 4000}, {0, 4000}});
  a.cgroup_busy_ns["/job"] = 1000000000;
  b.cgroup_busy_ns["/job"] = 5000000000;  // 4 s of CPU in 4 s on 2 CPUs
  b.cgroup_busy_ns["/new"] = 99;          // not in the first reading: no ratio yet
  auto w = compute_window(a, b);
  ASSERT_TRUE(w);
  EXPECT_DOUBLE_EQ(w->cgroups.at("/job"), 0.5);
  EXPECT_EQ(w->cgroups.count("/new"), 0u);
}

TEST(Window, RunqQuantilesAndReclaimFromDeltas) {
  auto a = reading(0, {{0, 0}});
  auto b = reading(1, {{0, 1000}});
  a.runq_buckets = std::vector<uint64_t>(48, 0);
  b.runq_buckets = std::vector<uint64_t>(48, 0);
  (*a.runq_buckets)[20] = 50;   // old waits must not count
  (*b.runq_buckets)[20] = 50;
  (*b.runq_buckets)[10] = 100;
  a.reclaim_stall_ns = 7000000000;
  b.reclaim_stall_ns = 7250000000;
  a.cpu_pressure_some_ns = 0;
  b.cpu_pressure_some_ns = 100000000;
  auto w = compute_window(a, b);
  ASSERT_TRUE(w);
  ASSERT_TRUE(w->runq_p99_s);
  EXPECT_LT(*w->runq_p99_s, bucket_upper_s(10) + 1e-12);
  EXPECT_NEAR(*w->reclaim_stall_s, 0.25, 1e-9);
  EXPECT_NEAR(*w->cpu_pressure_some, 0.1, 1e-9);
}

TEST(Window, ProcfsHasNoRunqQuantiles) {
  auto w = compute_window(reading(0, {{0, 0}}), reading(1, {{0, 1000}}));
  ASSERT_TRUE(w);
  EXPECT_FALSE(w->runq_p99_s.has_value());
  EXPECT_FALSE(w->reclaim_stall_s.has_value());
}

TEST(Window, RefusesReadingsOutOfOrderOrWithOtherCpus) {
  auto a = reading(5, {{0, 0}});
  auto b = reading(5, {{0, 0}});
  auto w = compute_window(a, b);
  ASSERT_FALSE(w);
  EXPECT_NE(w.message().find("time order"), std::string::npos);
  auto c = reading(6, {{0, 0}, {0, 0}});
  auto w2 = compute_window(a, c);
  ASSERT_FALSE(w2);
  EXPECT_NE(w2.message().find("online CPUs changed"), std::string::npos);
}

TEST(Window, MemoryUsedRatio) {
  EXPECT_DOUBLE_EQ(memory_used_ratio({0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(memory_used_ratio({100, 100}), 0.0);
  EXPECT_DOUBLE_EQ(memory_used_ratio({100, 0}), 1.0);
  EXPECT_DOUBLE_EQ(memory_used_ratio({100, 150}), 0.0);
}

TEST(Window, MarksSampledBusyAndRunQueueObservedShare) {
  auto a = reading(10, {{0, 0}});
  auto b = reading(15, {{1000, 5000}});
  a.runq_buckets = std::vector<uint64_t>(48, 0);
  b.runq_buckets = std::vector<uint64_t>(48, 0);
  (*b.runq_buckets)[20] = 10;
  auto exact = compute_window(a, b);
  ASSERT_TRUE(exact);
  EXPECT_FALSE(exact->cpu_sample_hz.has_value());
  EXPECT_DOUBLE_EQ(exact->runq_observed_share.value_or(-1), 1.0);  // recorded all the time

  a.cpu_sample_hz = b.cpu_sample_hz = 997;
  a.runq_observed_ns = 3000000000;
  b.runq_observed_ns = 3500000000;  // 0.5 s of the 5 s window
  auto sampled = compute_window(a, b);
  ASSERT_TRUE(sampled);
  EXPECT_DOUBLE_EQ(sampled->cpu_sample_hz.value_or(0), 997);
  EXPECT_DOUBLE_EQ(sampled->runq_observed_share.value_or(-1), 0.1);

  a.runq_buckets.reset();
  auto none = compute_window(a, b);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->runq_observed_share.has_value());
}

}  // namespace
}  // namespace weft::load
