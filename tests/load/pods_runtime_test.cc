// Pods' usage on the real kernel: two pods' groups laid out as kubelet does (cgroupfs
// driver) under a group of this test, one process burning a CPU with 64 MiB touched in
// one, one sleeping in the other, measured by the sampler with the eBPF backend (CPU
// attributed by the programs) and the procfs one (cpu.stat) over the same time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "collectors/load/load.h"
#include "collectors/load/pods/pod_cgroups.h"
#include "collectors/load/pods/pod_tracker.h"
#include "collectors/load/sampler.h"
#include "tests/load/pod_group.h"
#include "tests/support/process.h"

namespace weft::load {
namespace {

using testing::CgroupTree;
using testing::PodProcess;

constexpr const char* kBurner = "11111111-2222-4333-8444-555555555555";
constexpr const char* kSleeper = "66666666-7777-4888-9999-aaaaaaaaaaaa";

const PodUsage* find(const LoadSummary& s, const std::string& uid) {
  for (const auto& p : s.pods) {
    if (p.cgroup.uid == uid) return &p;
  }
  return nullptr;
}

std::unique_ptr<LoadSampler> sampler_for(Backend backend, const std::vector<std::string>& roots,
                                         const testing::CgroupMounts& mounts, const TextFiles& files) {
  auto selected = select_source(backend, host_factories());
  if (!selected) {
    ADD_FAILURE() << selected.message();
    return nullptr;
  }
  auto tracker = std::make_unique<PodTracker>(files, PodTrackerOptions{roots, mounts.v2, mounts.memory_v1});
  return std::make_unique<LoadSampler>(std::move(*selected),
                                       SamplerOptions{std::chrono::milliseconds(250), std::chrono::seconds(60)},
                                       std::move(tracker));
}

TEST(PodUsage, ABurningAndASleepingPodByEbpfAndByCpuStat) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  auto mounts = testing::cgroup_mounts();
  if (mounts.v2.empty()) GTEST_SKIP() << "no cgroup2 file system mounted";
  CgroupTree tree(mounts, "weft-pods-test-" + std::to_string(getpid()));
  const std::string burner = std::string("kubepods/burstable/pod") + kBurner;
  const std::string sleeper = std::string("kubepods/besteffort/pod") + kSleeper;
  ASSERT_TRUE(tree.make(burner) && tree.make(sleeper)) << tree.error();
  HostFiles files;
  const std::vector<std::string> roots = {tree.v2("kubepods")};
  auto ebpf = sampler_for(Backend::Ebpf, roots, mounts, files);
  auto procfs = sampler_for(Backend::Procfs, roots, mounts, files);
  ASSERT_TRUE(ebpf && procfs);
  // Both groups exist before the samplers start, as a running node's pods do; the
  // processes come after, as containers do.
  ASSERT_TRUE(ebpf->start());
  ASSERT_TRUE(procfs->start());
  PodProcess burn(tree.v2(burner), tree.memory_v1(burner), true, 64);
  PodProcess sleep(tree.v2(sleeper), tree.memory_v1(sleeper), false, 1);
  ASSERT_EQ(burn.error(), "");
  ASSERT_EQ(sleep.error(), "");
  std::this_thread::sleep_for(std::chrono::seconds(4));
  auto e = ebpf->summary();
  auto p = procfs->summary();
  ASSERT_TRUE(e && p);
  EXPECT_EQ(e->source, "ebpf");
  EXPECT_EQ(p->source, "procfs");
  ASSERT_EQ(e->pods.size(), 2u);
  ASSERT_EQ(p->pods.size(), 2u);
  const PodUsage* eb = find(*e, kBurner);
  const PodUsage* es = find(*e, kSleeper);
  const PodUsage* pb = find(*p, kBurner);
  const PodUsage* ps = find(*p, kSleeper);
  ASSERT_TRUE(eb && es && pb && ps);
  EXPECT_EQ(eb->cgroup.dir, tree.v2(burner));
  std::printf("burning pod: ebpf %.3f cores, cpu.stat %.3f cores over %.2f / %.2f s; sleeping pod %.4f / %.4f\n",
              eb->cpu_cores, pb->cpu_cores, eb->window_s, pb->window_s, es->cpu_cores, ps->cpu_cores);
  // However busy this shared machine is, the spinner gets a fair part of a CPU.
  EXPECT_GT(pb->cpu_cores, 0.05);
  EXPECT_LE(pb->cpu_cores, 1.05);
  // The same time, both ways (the tick samples at CONFIG_HZ over ~4 s).
  EXPECT_NEAR(eb->cpu_cores, pb->cpu_cores, 0.1);
  EXPECT_LT(es->cpu_cores, 0.02);
  EXPECT_LT(ps->cpu_cores, 0.02);
  if (tree.has_memory()) {
    ASSERT_TRUE(pb->memory_bytes && ps->memory_bytes);
    std::printf("working set: burning pod %.1f MiB, sleeping pod %.1f MiB\n", *pb->memory_bytes / 1048576,
                *ps->memory_bytes / 1048576);
    // The 64 MiB touched are all there at the end; the window's average holds the time before.
    EXPECT_GE(*pb->memory_bytes, 16.0 * 1048576);
    EXPECT_LE(*pb->memory_bytes, 80.0 * 1048576);
    EXPECT_LT(*ps->memory_bytes, 8.0 * 1048576);
  }
  // A pod that goes leaves the summaries at the next reading.
  sleep.stop();
  ASSERT_EQ(rmdir(tree.v2(sleeper).c_str()), 0) << std::strerror(errno);
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  e = ebpf->summary();
  p = procfs->summary();
  ASSERT_TRUE(e && p);
  EXPECT_FALSE(find(*e, kSleeper));
  EXPECT_FALSE(find(*p, kSleeper));
  EXPECT_TRUE(find(*e, kBurner));
  EXPECT_EQ(ebpf->last_error(), "");
  EXPECT_EQ(procfs->last_error(), "");
  ebpf->stop();
  procfs->stop();
}

}  // namespace
}  // namespace weft::load
