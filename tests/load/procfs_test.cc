#include <gtest/gtest.h>
#include <unistd.h>

#include "collectors/load/cgroup.h"
#include "collectors/load/procfs_parse.h"
#include "collectors/load/procfs/procfs_source.h"
#include "collectors/load/window.h"
#include "tests/load/fake_files.h"

namespace weft::load {
namespace {

using testing::FakeFiles;

TEST(ProcStat, BusyAndTotalPerCpu) {
  const char* text =
      "cpu  10 0 10 100 0 0 0 0 0 0\n"
      "cpu0 1 2 3 40 5 6 7 8 0 0\n"
      "cpu1 10 0 0 90 0 0 0 0 0 0\n"
      "intr 1 2 3\n";
  auto cpus = parse_proc_stat(text, 10);
  ASSERT_TRUE(cpus) << cpus.message();
  ASSERT_EQ(cpus->size(), 2u);
  EXPECT_EQ((*cpus)[0].cpu, 0);
  EXPECT_EQ((*cpus)[0].busy_ns, (1 + 2 + 3 + 6 + 7 + 8) * 10u);
  EXPECT_EQ((*cpus)[0].total_ns, (1 + 2 + 3 + 6 + 7 + 8 + 40 + 5) * 10u);
  EXPECT_EQ((*cpus)[0].steal_ns, 8 * 10u);   // inside busy, apart too
  EXPECT_EQ((*cpus)[1].busy_ns, 100u);
  EXPECT_EQ((*cpus)[1].steal_ns, 0u);
}

TEST(ProcStat, ErrorsNameTheLineAndField) {
  auto r = parse_proc_stat("cpu  1 1 1 1\ncpu0 1 x 3 4\n", 10);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("line 2"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("field 2"), std::string::npos) << r.message();
  EXPECT_FALSE(parse_proc_stat("intr 1\n", 10));
  EXPECT_FALSE(parse_proc_stat("cpu0 1 2\n", 10));
}

TEST(Meminfo, TotalAndAvailableInBytes) {
  auto m = parse_meminfo("MemTotal:       1000 kB\nMemFree:  10 kB\nMemAvailable:    250 kB\n");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->total_bytes, 1024000u);
  EXPECT_EQ(m->available_bytes, 256000u);
  auto bad = parse_meminfo("MemTotal: 1000 kB\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("MemAvailable"), std::string::npos);
}

TEST(Pressure, SomeTotalInNanoseconds) {
  auto ns = parse_pressure_some_ns(
      "some avg10=1.99 avg60=5.56 avg300=8.82 total=58220987\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  ASSERT_TRUE(ns) << ns.message();
  EXPECT_EQ(*ns, 58220987000u);
  EXPECT_FALSE(parse_pressure_some_ns("full avg10=0 total=5\n"));
  EXPECT_FALSE(parse_pressure_some_ns("some avg10=0 total=x\n"));
}

TEST(CgroupCpuStat, UsageInNanoseconds) {
  auto ns = parse_cgroup_usage_ns("usage_usec 685434175\nuser_usec 1\nsystem_usec 2\n");
  ASSERT_TRUE(ns);
  EXPECT_EQ(*ns, 685434175000u);
  EXPECT_FALSE(parse_cgroup_usage_ns("user_usec 1\n"));
}

TEST(CpuList, RangesAndSingles) {
  auto c = parse_cpu_list("0-2,5,7-8\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, (std::vector<int>{0, 1, 2, 5, 7, 8}));
  EXPECT_FALSE(parse_cpu_list("3-1"));
  EXPECT_FALSE(parse_cpu_list(""));
  EXPECT_FALSE(parse_cpu_list("a"));
}

TEST(Cgroup2Mount, HybridAndPure) {
  EXPECT_EQ(*parse_cgroup2_mount("cgroup /sys/fs/cgroup/cpu cgroup rw 0 0\n"
                                 "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"),
            "/sys/fs/cgroup/unified");
  EXPECT_EQ(*parse_cgroup2_mount("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n"), "/sys/fs/cgroup");
  EXPECT_FALSE(parse_cgroup2_mount("proc /proc proc rw 0 0\n"));
}

TEST(CgroupDir, AbsoluteOrInsideTheHierarchy) {
  FakeFiles f;
  f.files["/cg/pods/a/cpu.stat"] = "usage_usec 1\n";
  EXPECT_EQ(*resolve_cgroup_dir(f, "/cg", "/cg/pods/a"), "/cg/pods/a");
  EXPECT_EQ(*resolve_cgroup_dir(f, "/cg", "/pods/a/"), "/cg/pods/a");
  EXPECT_EQ(*resolve_cgroup_dir(f, "/cg", "pods/a"), "/cg/pods/a");
  auto missing = resolve_cgroup_dir(f, "/cg", "/pods/b");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("/cg/pods/b does not exist"), std::string::npos) << missing.message();
  EXPECT_FALSE(resolve_cgroup_dir(f, "/cg", "/pods/../../etc"));
  EXPECT_FALSE(resolve_cgroup_dir(f, "/cg", ""));
}

TEST(ProcfsSource, ReadsCountersFromTheFiles) {
  FakeFiles f;
  f.files["/p/stat"] = "cpu  0 0 0 0\ncpu1 100 0 0 100 0 0 0 0\ncpu0 50 0 0 150 0 0 0 0\n";
  f.files["/p/meminfo"] = "MemTotal: 100 kB\nMemAvailable: 40 kB\n";
  f.files["/p/pressure/cpu"] = "some avg10=0 avg60=0 avg300=0 total=1000\n";
  f.files["/p/pressure/memory"] = "some avg10=0 avg60=0 avg300=0 total=20\n";
  f.files["/cg/job/cpu.stat"] = "usage_usec 3000\n";
  ProcfsSource src(f, "/cg", {"/p", "/none"});
  ASSERT_TRUE(src.watch_cgroup("/job"));
  auto c = src.read();
  ASSERT_TRUE(c) << c.message();
  const uint64_t tick = 1000000000ULL / static_cast<uint64_t>(sysconf(_SC_CLK_TCK));
  ASSERT_EQ(c->cpus.size(), 2u);
  EXPECT_EQ(c->cpus[0].cpu, 0);  // sorted
  EXPECT_EQ(c->cpus[0].busy_ns, 50 * tick);
  EXPECT_EQ(c->cpus[1].total_ns, 200 * tick);
  EXPECT_EQ(c->memory.total_bytes, 102400u);
  EXPECT_EQ(*c->cpu_pressure_some_ns, 1000000u);
  EXPECT_EQ(*c->reclaim_stall_ns, 20000u);
  EXPECT_EQ(c->cgroup_busy_ns.at("/job"), 3000000u);
  EXPECT_FALSE(c->runq_buckets.has_value());
}

TEST(ProcfsSource, WorksWithoutPsiAndNamesMissingFiles) {
  FakeFiles f;
  f.files["/p/stat"] = "cpu0 1 0 0 1\n";
  f.files["/p/meminfo"] = "MemTotal: 100 kB\nMemAvailable: 40 kB\n";
  ProcfsSource src(f, "/cg", {"/p", "/none"});
  auto c = src.read();
  ASSERT_TRUE(c) << c.message();
  EXPECT_FALSE(c->cpu_pressure_some_ns.has_value());
  EXPECT_FALSE(c->reclaim_stall_ns.has_value());
  EXPECT_FALSE(src.watch_cgroup("/nope"));
  f.files.erase("/p/meminfo");
  auto bad = src.read();
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("/p/meminfo"), std::string::npos);
}

}  // namespace
}  // namespace weft::load
