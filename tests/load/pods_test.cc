// Pods' cgroups on fixed trees: kubelet's names (systemd and cgroupfs drivers) and the
// demo runtime's, the walk, working sets (v2 and v1), the tracker against a fake
// backend, and each pod's cores and memory over a window of readings.
#include "collectors/load/pods/pod_cgroups.h"

#include <gtest/gtest.h>

#include "collectors/load/pods/pod_tracker.h"
#include "collectors/load/pods/pod_usage.h"
#include "tests/load/fake_files.h"
#include "tests/load/fake_source.h"

namespace weft::load {
namespace {

using testing::FakeFiles;
using testing::FakeSource;

constexpr const char* kUid = "0f9ab3c2-7d41-4e8a-9b6f-2c5d8e1a3b47";
constexpr const char* kUidEscaped = "0f9ab3c2_7d41_4e8a_9b6f_2c5d8e1a3b47";

TEST(PodCgroupName, KubeletSystemdDriverInEveryQosClass) {
  for (std::string qos : {"", "burstable-", "besteffort-"}) {
    auto p = parse_pod_cgroup_name("kubepods-" + qos + "pod" + kUidEscaped + ".slice");
    ASSERT_TRUE(p) << qos;
    EXPECT_EQ(p->uid, kUid);
    EXPECT_EQ(p->runtime_name, "");
  }
}

TEST(PodCgroupName, KubeletCgroupfsDriverAndStaticPodHashes) {
  auto p = parse_pod_cgroup_name(std::string("pod") + kUid);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->uid, kUid);
  // A static pod's uid is a hash of its manifest.
  auto s = parse_pod_cgroup_name("pod6b8e3c1fd1d5c2f0a7e4b3c9d8e7f6a5");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->uid, "6b8e3c1fd1d5c2f0a7e4b3c9d8e7f6a5");
}

TEST(PodCgroupName, TheDemoRuntimesNamespaceAndName) {
  auto p = parse_pod_cgroup_name("pod-team-a-trainer-0");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->uid, "");
  EXPECT_EQ(p->runtime_name, "team-a-trainer-0");
}

TEST(PodCgroupName, OtherGroupsAreNotPods) {
  for (const char* name : {"kubepods.slice", "kubepods-burstable.slice", "kubepods-besteffort.slice", "kubepods",
                           "burstable", "besteffort", "pod", "pod-", "pod-ns", "pod-ns-", "pod--x", "pods",
                           "podcast", "kubepods-guaranteed-pod0f9ab3c2.slice", "kubepods-pod0f9a-b3c2.slice",
                           "kubepods-burstable-pod.slice", "cri-containerd-0f9ab3c2.scope", "system.slice"}) {
    EXPECT_FALSE(parse_pod_cgroup_name(name)) << name;
  }
}

// Files of a cgroup tree: each directory gets a cpu.stat.
void add_group(FakeFiles& f, const std::string& dir, uint64_t usage_usec = 0) {
  f.files[dir + "/cpu.stat"] = "usage_usec " + std::to_string(usage_usec) + "\nuser_usec 0\nsystem_usec 0\n";
}

TEST(FindPodCgroups, KubeletLayoutsDownToThePodNotIntoIt) {
  FakeFiles f;
  const std::string sd = "/cg/kubepods.slice";
  add_group(f, sd + "/kubepods-burstable.slice/kubepods-burstable-pod" + kUidEscaped + ".slice");
  add_group(f, sd + "/kubepods-burstable.slice/kubepods-burstable-pod" + kUidEscaped + ".slice/cri-containerd-ab.scope");
  add_group(f, sd + "/kubepods-pod11111111_2222_3333_4444_555555555555.slice");
  // A pod's containers are not pods, even when named like one.
  add_group(f, sd + "/kubepods-pod11111111_2222_3333_4444_555555555555.slice/pod-x-y");
  add_group(f, "/cg/kubepods/besteffort/pod99999999-8888-7777-6666-555555555555/c1");
  add_group(f, "/cg/system.slice/pod-not-scanned");
  // Too deep to be kubelet's.
  add_group(f, sd + "/a/b/c/pod12345678");
  auto pods = find_pod_cgroups(f, kubelet_pod_roots("/cg"));
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[0].dir, "/cg/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + std::string(kUidEscaped) + ".slice");
  EXPECT_EQ(pods[0].uid, kUid);
  EXPECT_EQ(pods[1].uid, "11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(pods[2].dir, "/cg/kubepods/besteffort/pod99999999-8888-7777-6666-555555555555");
}

TEST(FindPodCgroups, TheDemoNodesGroupAndMissingRoots) {
  FakeFiles f;
  add_group(f, "/cg/demo/node-1/pod-default-burner");
  add_group(f, "/cg/demo/node-1/pod-default-idle");
  add_group(f, "/cg/demo/node-2/pod-default-other");
  auto pods = find_pod_cgroups(f, {"/cg/demo/node-1", "/cg/nowhere"});
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].runtime_name, "default-burner");
  EXPECT_EQ(pods[1].runtime_name, "default-idle");
}

TEST(MemoryWorkingSet, CurrentLessInactiveFileOnV2OrUsageLessTotalInactiveOnV1) {
  FakeFiles f;
  f.files["/cg/p/memory.current"] = "1000000\n";
  f.files["/cg/p/memory.stat"] = "anon 600000\nfile 400000\nactive_file 100000\ninactive_file 300000\n";
  auto ws = read_memory_working_set(f, "/cg/p", "/v1/p");
  ASSERT_TRUE(ws) << ws.message();
  EXPECT_EQ(*ws, 700000u);
  // Accounting races can leave inactive_file above the usage read a moment before.
  f.files["/cg/p/memory.stat"] = "inactive_file 2000000\n";
  EXPECT_EQ(*read_memory_working_set(f, "/cg/p", ""), 0u);
  // Where the memory controller is on cgroup v1 (a hybrid host), the same from there.
  FakeFiles v1;
  v1.files["/v1/p/memory.usage_in_bytes"] = "5000\n";
  v1.files["/v1/p/memory.stat"] = "cache 100\ninactive_file 999\ntotal_inactive_file 1000\n";
  EXPECT_EQ(*read_memory_working_set(v1, "/cg/p", "/v1/p"), 4000u);
}

TEST(MemoryWorkingSet, ErrorsNameTheFile) {
  FakeFiles f;
  auto none = read_memory_working_set(f, "/cg/p", "");
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("/cg/p: no memory.current"), std::string::npos) << none.message();
  f.files["/cg/p/memory.current"] = "lots\n";
  f.files["/cg/p/memory.stat"] = "inactive_file 1\n";
  auto bad = read_memory_working_set(f, "/cg/p", "");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("/cg/p/memory.current: not a number"), std::string::npos) << bad.message();
  f.files["/cg/p/memory.current"] = "10\n";
  f.files["/cg/p/memory.stat"] = "anon 1\n";
  auto no_line = read_memory_working_set(f, "/cg/p", "");
  ASSERT_FALSE(no_line);
  EXPECT_NE(no_line.message().find("/cg/p/memory.stat: no inactive_file"), std::string::npos) << no_line.message();
}

struct TrackerFixture {
  FakeFiles files;
  FakeSource source{"ebpf"};
  std::string a = "/cg/n/pod-default-a", b = "/cg/n/pod-default-b";
  TrackerFixture() {
    add_group(files, a, 1000);
    add_group(files, b, 5000);
    files.files[a + "/memory.current"] = "4096\n";
    files.files[a + "/memory.stat"] = "inactive_file 1024\n";
  }
  PodTracker tracker() { return PodTracker(files, {{"/cg/n"}, "/cg", ""}); }
};

TEST(PodTracker, WatchesNewPodsOnABackendThatCountsCgroupsAndUnwatchesGoneOnes) {
  TrackerFixture fx;
  fx.source.counts_cgroups = true;
  auto t = fx.tracker();
  EXPECT_TRUE(t.refresh(fx.source));
  EXPECT_EQ(fx.source.watched, (std::vector<std::string>{fx.a, fx.b}));
  EXPECT_FALSE(t.refresh(fx.source));  // nothing new
  LoadCounters c;
  c.cgroup_busy_ns = {{fx.a, 7000}, {fx.b, 9000}};
  auto s = t.sample(c);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].cpu_ns, 7000u);  // the backend's count, not cpu.stat's 1 ms
  EXPECT_TRUE(s[0].cpu_from_backend);
  EXPECT_EQ(s[0].memory_bytes, 3072u);
  EXPECT_FALSE(s[1].memory_bytes);  // no memory controller on b
  fx.files.files.erase(fx.b + "/cpu.stat");
  EXPECT_TRUE(t.refresh(fx.source));
  EXPECT_EQ(fx.source.unwatched, (std::vector<std::string>{fx.b}));
  auto pods = t.pods();
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods.begin()->second.runtime_name, "default-a");
}

TEST(PodTracker, CpuStatWhenTheBackendDoesNotCountCgroupsOrRefusesOne) {
  TrackerFixture fx;
  fx.source.counts_cgroups = false;
  auto t = fx.tracker();
  t.refresh(fx.source);
  EXPECT_TRUE(fx.source.watched.empty());
  auto s = t.sample(LoadCounters{});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].cpu_ns, 1000000u);  // usage_usec 1000
  EXPECT_FALSE(s[0].cpu_from_backend);
  // A backend out of slots: that pod is measured from cpu.stat.
  TrackerFixture full;
  full.source.counts_cgroups = true;
  full.source.refuse_watch = full.b;
  auto t2 = full.tracker();
  t2.refresh(full.source);
  LoadCounters c;
  c.cgroup_busy_ns = {{full.a, 7000}};
  auto s2 = t2.sample(c);
  ASSERT_EQ(s2.size(), 2u);
  EXPECT_TRUE(s2[0].cpu_from_backend);
  EXPECT_FALSE(s2[1].cpu_from_backend);
  EXPECT_EQ(s2[1].cpu_ns, 5000000u);
  // A pod whose group went between refresh and reading is left out of that reading.
  full.files.files.erase(full.b + "/cpu.stat");
  EXPECT_EQ(t2.sample(c).size(), 1u);
}

LoadCounters reading(double at_s, std::vector<PodSample> pods) {
  LoadCounters c;
  c.at_ns = static_cast<int64_t>(at_s * 1e9);
  c.pods = std::move(pods);
  return c;
}

TEST(PodUsage, CoresOverEachPodsPartOfTheWindowAndMemoryAveraged) {
  std::map<uint32_t, PodCgroup> pods = {{1, {"/cg/a", "uid-a", ""}}, {2, {"/cg/b", "", "ns-b"}},
                                        {3, {"/cg/c", "", "ns-c"}}};
  std::deque<LoadCounters> r;
  r.push_back(reading(0, {{1, 0, true, 100}}));
  r.push_back(reading(10, {{1, 15'000'000'000, true, 300}, {2, 1'000'000'000, false, std::nullopt}}));
  // Pod 2 came at 10 s: its window is 10..20 s; pod 3 appears only now.
  r.push_back(reading(20, {{1, 20'000'000'000, true, 200}, {2, 6'000'000'000, false, std::nullopt},
                           {3, 1'000'000'000, false, 50}}));
  auto u = compute_pod_usage(r, pods);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].cgroup.uid, "uid-a");
  EXPECT_DOUBLE_EQ(u[0].cpu_cores, 1.0);
  EXPECT_DOUBLE_EQ(u[0].window_s, 20.0);
  EXPECT_DOUBLE_EQ(*u[0].memory_bytes, 200.0);
  EXPECT_EQ(u[1].cgroup.runtime_name, "ns-b");
  EXPECT_DOUBLE_EQ(u[1].cpu_cores, 0.5);
  EXPECT_DOUBLE_EQ(u[1].window_s, 10.0);
  EXPECT_FALSE(u[1].memory_bytes);
}

TEST(PodUsage, ACounterThatChangedSourceOrWentBackwardsOrAPodNotKnown) {
  std::map<uint32_t, PodCgroup> pods = {{1, {"/cg/a", "uid-a", ""}}, {2, {"/cg/b", "uid-b", ""}}};
  std::deque<LoadCounters> r;
  r.push_back(reading(0, {{1, 9'000'000'000, false, std::nullopt}, {2, 5, true, std::nullopt},
                          {7, 0, true, std::nullopt}}));
  r.push_back(reading(4, {{1, 1'000'000'000, true, std::nullopt}, {2, 1, true, std::nullopt},
                          {7, 9, true, std::nullopt}}));
  r.push_back(reading(8, {{1, 3'000'000'000, true, std::nullopt}, {2, 2, true, std::nullopt},
                          {7, 9, true, std::nullopt}}));
  auto u = compute_pod_usage(r, pods);
  ASSERT_EQ(u.size(), 2u);  // 7 is not a pod the tracker knows
  EXPECT_DOUBLE_EQ(u[0].cpu_cores, 0.5);  // from 4 s, where its count became the backend's
  EXPECT_DOUBLE_EQ(u[0].window_s, 4.0);
  EXPECT_DOUBLE_EQ(u[1].cpu_cores, 0.0);  // 5 -> 2: reset, not negative
  std::deque<LoadCounters> one{reading(0, {{1, 0, true, std::nullopt}})};
  EXPECT_TRUE(compute_pod_usage(one, pods).empty());
}

}  // namespace
}  // namespace weft::load
