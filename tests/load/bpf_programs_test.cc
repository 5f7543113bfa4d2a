// The BPF programs in the kernel: verifier acceptance, attach, and the reclaim and
// switch programs driven through BPF_PROG_TEST_RUN (raw_tp takes its u64 args as ctx).
#include <bpf/bpf.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "collectors/load/ebpf/bpf_loader.h"
#include "collectors/load/counters.h"
#include "collectors/load/ebpf/cpu_clock_sampling.h"
#include "ebpf/load.skel.h"
#include "ebpf/load_types.h"
#include "ebpf/test_reject.skel.h"
#include "tests/support/process.h"

namespace weft::load {
namespace {

// Skeleton opened and loaded (not attached), destroyed at scope end; sampled: busy time
// from the cpu-clock sample program, sched_switch for run-queue waits only.
struct LoadedSkeleton {
  explicit LoadedSkeleton(bool sampled = false, int sample_hz = 997) {
    if (!skel) return;
    skel->rodata->busy_from_switch = !sampled;
    skel->rodata->runq_sched_info = sampled;
    if (sampled) skel->rodata->sample_period_ns = 1000000000ULL / static_cast<uint64_t>(sample_hz);
    status = load_skeleton(skel->skeleton, "load.bpf.o");
  }
  weft_load* skel = weft_load__open();
  Status status = make_error("open failed");
  ~LoadedSkeleton() { weft_load__destroy(skel); }
};

std::vector<weft_cpu_stats> read_stats(weft_load* skel) {
  std::vector<weft_cpu_stats> v(static_cast<size_t>(libbpf_num_possible_cpus()));
  uint32_t zero = 0;
  EXPECT_EQ(bpf_map__lookup_elem(skel->maps.cpu_stats, &zero, sizeof zero, v.data(), v.size() * sizeof v[0], 0), 0);
  return v;
}

// cpu < 0: run in this thread's context (bpf_get_current_*() see this thread);
// otherwise on that CPU, from an IPI, where "current" is whatever runs there.
int test_run(bpf_program* prog, std::vector<uint64_t> args, int cpu = -1) {
  bpf_test_run_opts opts{};
  opts.sz = sizeof opts;
  opts.ctx_in = args.data();
  opts.ctx_size_in = static_cast<uint32_t>(args.size() * sizeof(uint64_t));
  if (cpu >= 0) {
    opts.flags = BPF_F_TEST_RUN_ON_CPU;
    opts.cpu = static_cast<uint32_t>(cpu);
  }
  return bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
}

TEST(BpfPrograms, VerifierAcceptsAndRawTracepointsAttach) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  LoadedSkeleton s;
  ASSERT_TRUE(s.status) << s.status.message();
  ASSERT_TRUE(attach_skeleton(s.skel->skeleton, "load.bpf.o"));
  EXPECT_NE(s.skel->links.weft_sched_switch, nullptr);
  EXPECT_NE(s.skel->links.weft_sched_wakeup, nullptr);
  EXPECT_NE(s.skel->links.weft_sched_wakeup_new, nullptr);
  EXPECT_NE(s.skel->links.weft_reclaim_begin, nullptr);
  EXPECT_NE(s.skel->links.weft_reclaim_end, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  uint64_t switches = 0;
  for (const auto& c : read_stats(s.skel)) switches += c.switches;
  EXPECT_GT(switches, 0u) << "sched_switch never ran in 200 ms";
}

TEST(BpfPrograms, ReclaimStallIsTimedFromBeginToEndOfTheSameTask) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  LoadedSkeleton s;
  ASSERT_TRUE(s.status) << s.status.message();
  // mm_vmscan_direct_reclaim_begin(int order, gfp_t gfp) / _end(unsigned long nr_reclaimed)
  ASSERT_EQ(test_run(s.skel->progs.weft_reclaim_begin, {3, 0xcc0}), 0) << std::strerror(errno);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_EQ(test_run(s.skel->progs.weft_reclaim_end, {12}), 0);
  uint64_t stall = 0, count = 0;
  for (const auto& c : read_stats(s.skel)) {
    stall += c.reclaim_ns;
    count += c.reclaim_count;
  }
  EXPECT_EQ(count, 1u);
  EXPECT_GE(stall, 30000000u);
  EXPECT_LT(stall, 2000000000u);
  // An end without a begin (attached mid-reclaim) adds nothing.
  ASSERT_EQ(test_run(s.skel->progs.weft_reclaim_end, {0}), 0);
  count = 0;
  for (const auto& c : read_stats(s.skel)) count += c.reclaim_count;
  EXPECT_EQ(count, 1u);
}

TEST(BpfPrograms, SwitchBetweenIdleTasksCountsNoBusyTime) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  LoadedSkeleton s;
  ASSERT_TRUE(s.status) << s.status.message();
  // prev = next = NULL reads as pid 0, the idle task: the CPU stays idle.
  int64_t t0 = monotonic_now_ns();
  ASSERT_EQ(test_run(s.skel->progs.weft_sched_switch, {0, 0, 0, 0}, 0), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(test_run(s.skel->progs.weft_sched_switch, {0, 0, 0, 0}, 0), 0);
  int64_t t1 = monotonic_now_ns();
  auto st = read_stats(s.skel);
  EXPECT_EQ(st[0].switches, 2u);
  EXPECT_EQ(st[0].seq, 4u);  // two complete updates, even: not torn
  EXPECT_EQ(st[0].busy_ns, 0u);
  EXPECT_EQ(st[0].running, 0u);
  EXPECT_GE(static_cast<int64_t>(st[0].last_switch_ns), t0);
  EXPECT_LE(static_cast<int64_t>(st[0].last_switch_ns), t1);
  uint64_t waits = 0;
  for (uint64_t b : st[0].runq) waits += b;
  EXPECT_EQ(waits, 0u);
}

TEST(BpfPrograms, SwitchOutOfATaskWhoseSwitchInWasNotSeenIsCountedAsBusy) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  LoadedSkeleton s;
  ASSERT_TRUE(s.status) << s.status.message();
  // Both runs in this thread's context on one CPU: "current" (prev) is this thread.
  cpu_set_t before, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  // Non-canonical addresses: every probe read through them fails and reads as 0.
  const uint64_t task_a = 0x8000000000001000ULL, task_b = 0x8000000000002000ULL;
  // A switches in (its pid reads as 0: the CPU looks idle from here on) ...
  ASSERT_EQ(test_run(s.skel->progs.weft_sched_switch, {0, 0, task_a, 0}), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // ... but B, whose switch-in was never seen, switches out: its 20 ms were busy.
  ASSERT_EQ(test_run(s.skel->progs.weft_sched_switch, {0, task_b, 0, 0}), 0);
  sched_setaffinity(0, sizeof before, &before);
  auto st = read_stats(s.skel);
  EXPECT_EQ(st[0].switches, 2u);
  EXPECT_EQ(st[0].unseen_switches, 1u);
  EXPECT_GE(st[0].busy_ns, 20000000u);
  EXPECT_LT(st[0].busy_ns, 2000000000u);
}

// The sample program on every online CPU's cpu-clock event: a CPU kept busy by a pinned
// thread is sampled at about the asked rate and reads (almost) all busy, one period per
// sample. (An idle CPU is hardly sampled at all, a few times a second here, which is why
// a sample stands for one period rather than for the time since the previous one.)
TEST(BpfPrograms, CpuClockSamplesABusyCpuAtItsRateAndReadsItBusy) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  LoadedSkeleton s(true);
  ASSERT_TRUE(s.status) << s.status.message();
  const int ncpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::vector<int> cpus;
  for (int c = 0; c < ncpu; c++) cpus.push_back(c);
  auto sampling = CpuClockSampling::attach(s.skel->progs.weft_cpu_sample, cpus, 997);
  ASSERT_TRUE(sampling) << sampling.message();
  EXPECT_EQ(sampling->size(), cpus.size());
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one);
    volatile unsigned long spin = 0;
    while (!stop.load(std::memory_order_relaxed)) spin = spin + 1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto a = read_stats(s.skel);
  int64_t t0 = monotonic_now_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  auto b = read_stats(s.skel);
  int64_t t1 = monotonic_now_ns();
  stop = true;
  spinner.join();
  const double secs = static_cast<double>(t1 - t0) * 1e-9;
  for (int c : cpus) {
    auto i = static_cast<size_t>(c);
    double rate = static_cast<double>(b[i].samples - a[i].samples) / secs;
    std::printf("cpu%d: %.0f samples/s, busy %.3f\n", c, rate,
                static_cast<double>(b[i].busy_ns - a[i].busy_ns) * 1e-9 / secs);
    EXPECT_LT(rate, 997 * 1.1) << "cpu " << c;
    if (c == 0) {
      EXPECT_GT(rate, 997 * 0.5) << "the spinning CPU";   // a stolen vCPU may miss some
    }
    EXPECT_EQ(b[i].seq % 2, 0u);
    EXPECT_EQ(b[i].seq, 2 * b[i].samples);
  }
  EXPECT_GT(static_cast<double>(b[0].busy_ns - a[0].busy_ns) * 1e-9 / secs, 0.9) << "a spinning CPU read idle";
}

// In the sampled mode sched_switch leaves the busy fields to the sample program.
TEST(BpfPrograms, SampledModeSwitchLeavesBusyTimeAlone) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  LoadedSkeleton s(true);
  ASSERT_TRUE(s.status) << s.status.message();
  ASSERT_EQ(test_run(s.skel->progs.weft_sched_switch, {0, 0, 0, 0}, 0), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(test_run(s.skel->progs.weft_sched_switch, {0, 0, 0, 0}, 0), 0);
  auto st = read_stats(s.skel);
  EXPECT_EQ(st[0].switches, 2u);
  EXPECT_EQ(st[0].seq, 0u);
  EXPECT_EQ(st[0].busy_ns, 0u);
  EXPECT_EQ(st[0].last_switch_ns, 0u);
}

TEST(BpfPrograms, VerifierRejectionIsAnErrorWithTheVerifierLines) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  weft_test_reject* skel = weft_test_reject__open();
  ASSERT_NE(skel, nullptr);
  Status st = load_skeleton(skel->skeleton, "test_reject.bpf.o");
  weft_test_reject__destroy(skel);
  ASSERT_FALSE(st);
  // The kernel's own wording for a map value used before its NULL check.
  EXPECT_NE(st.message().find("invalid mem access"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("verifier"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace weft::load
