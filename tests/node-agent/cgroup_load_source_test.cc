// CgroupLoadSource: a cgroup's CPU time as a simulated node's load, on fixed text and
// a fake clock, and on a real cgroup v2 group with a process burning CPU in it.
#include "node-agent/daemon/cgroup_load_source.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "collectors/load/cgroup.h"
#include "tests/load/fake_files.h"
#include "tests/support/process.h"

namespace weft::agent {
namespace {

using weft::load::testing::FakeFiles;

constexpr const char* kMeminfo = "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    250 kB\n";

std::string cpu_stat(uint64_t usec) {
  return "usage_usec " + std::to_string(usec) + "\nuser_usec " + std::to_string(usec) + "\nsystem_usec 0\n";
}

struct FakeNode {
  FakeFiles files;
  int64_t now = 1'000'000'000;
  FakeNode() {
    files.files["/cg/node-a/cpu.stat"] = cpu_stat(0);
    files.files["/proc/meminfo"] = kMeminfo;
  }
  CgroupLoadOptions options(double cpus) {
    CgroupLoadOptions o;
    o.cgroup = "node-a";
    o.cpus = cpus;
    o.mount = "/cg";
    o.first_window = std::chrono::milliseconds(0);
    // Each reading is one second after the previous one.
    o.now_ns = [this] { return now += 1'000'000'000; };
    return o;
  }
};

TEST(CgroupLoadSource, BusyRatioIsCgroupTimeOverCapacity) {
  FakeNode node;
  auto source = CgroupLoadSource::create(node.files, node.options(0.5));
  ASSERT_TRUE(source) << source.message();
  EXPECT_EQ((*source)->dir(), "/cg/node-a");
  ASSERT_TRUE((*source)->sample());   // baseline

  // 1 s of wall time, 0.125 s of CPU in the group: 0.125 cores of a 0.5-core node = 25 %.
  node.files.files["/cg/node-a/cpu.stat"] = cpu_stat(125'000);
  auto s = (*source)->sample();
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(s->source, "cgroup");
  EXPECT_NEAR(s->cpu, 0.25, 1e-9);
  EXPECT_NEAR(s->window_seconds, 1.0, 1e-9);
  EXPECT_NEAR(s->memory, 0.75, 1e-9);
  EXPECT_EQ(s->json["source"], "cgroup");
  EXPECT_NEAR(s->json["cgroup"]["busy_cores"].get<double>(), 0.125, 1e-9);
}

TEST(CgroupLoadSource, MoreThanCapacityCountsAsFullyBusy) {
  auto s = cgroup_window_snapshot("/cg/x", 0.1, {0, 0}, {1'000'000'000, 500'000'000}, {1000, 500});
  ASSERT_TRUE(s) << s.message();
  EXPECT_DOUBLE_EQ(s->cpu, 1.0);
  EXPECT_NEAR(s->json["cgroup"]["busy_cores"].get<double>(), 0.5, 1e-9);
}

TEST(CgroupLoadSource, CounterGoingBackwardsIsAnErrorThenRecovers) {
  FakeNode node;
  node.files.files["/cg/node-a/cpu.stat"] = cpu_stat(900'000);
  auto source = CgroupLoadSource::create(node.files, node.options(1));
  ASSERT_TRUE(source);
  ASSERT_TRUE((*source)->sample());
  node.files.files["/cg/node-a/cpu.stat"] = cpu_stat(100);
  auto bad = (*source)->sample();
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("went backwards"), std::string::npos) << bad.message();
  node.files.files["/cg/node-a/cpu.stat"] = cpu_stat(100'100);
  auto good = (*source)->sample();
  ASSERT_TRUE(good) << good.message();
  EXPECT_NEAR(good->cpu, 0.1, 1e-9);
}

TEST(CgroupLoadSource, BadInputIsAClearError) {
  FakeNode node;
  auto missing = CgroupLoadSource::create(node.files, [&] {
    auto o = node.options(1);
    o.cgroup = "node-b";
    return o;
  }());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("/cg/node-b does not exist"), std::string::npos) << missing.message();

  auto zero = CgroupLoadSource::create(node.files, node.options(0));
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.message().find("--load-cgroup-cpus"), std::string::npos) << zero.message();

  node.files.files["/cg/node-a/cpu.stat"] = "garbage\n";
  auto source = CgroupLoadSource::create(node.files, node.options(1));
  ASSERT_TRUE(source);
  auto s = (*source)->sample();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("/cg/node-a/cpu.stat"), std::string::npos) << s.message();
}

// The real kernel: a child burning CPU inside a fresh cgroup v2 group is measured, and
// the rest of the machine is not.
TEST(CgroupLoadSourceRuntime, MeasuresABurnerInItsGroup) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  weft::load::HostFiles files;
  auto mounts = files.read("/proc/self/mounts");
  ASSERT_TRUE(mounts);
  auto mount = weft::load::parse_cgroup2_mount(*mounts);
  WEFT_SKIP_UNLESS(mount ? std::string() : mount.message());
  const std::string dir = *mount + "/weft-cgroup-load-test-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0) << dir;

  CgroupLoadOptions o;
  o.cgroup = dir;
  o.cpus = 2;
  o.first_window = std::chrono::milliseconds(0);
  auto source = CgroupLoadSource::create(files, o);
  ASSERT_TRUE(source) << source.message();
  ASSERT_TRUE((*source)->sample());
  auto idle = (*source)->sample();
  ASSERT_TRUE(idle) << idle.message();
  EXPECT_LT(idle->cpu, 0.01);

  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::ofstream(dir + "/cgroup.procs") << 0 << std::flush;
    for (;;) asm volatile("" ::: "memory");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto busy = (*source)->sample();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::rmdir(dir.c_str());
  ASSERT_TRUE(busy) << busy.message();
  // One spinning thread on a 2-core capacity is at most 50 %; a loaded machine gives it less.
  EXPECT_GT(busy->cpu, 0.05);
  EXPECT_LE(busy->cpu, 0.52);
}

TEST(CgroupLoadSourceRuntime, FactoryNamesAMissingGroup) {
  std::string why;
  auto source = make_cgroup_load_source("weft-no-such-group-for-test", 1, &why);
  ASSERT_FALSE(source);
  EXPECT_NE(source.message().find("weft-no-such-group-for-test"), std::string::npos) << source.message();
}

}  // namespace
}  // namespace weft::agent
