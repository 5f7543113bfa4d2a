// gang-repair: a gang found below minMember with running members (a crash half-way
// through its bindings) is completed in its fabric before any other job, its room there
// is held while it waits, and past --gang-repair-timeout its members are evicted.
#include <gtest/gtest.h>

#include <set>

#include "kube/time.h"
#include "scheduler/core/session.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const char* const kBoundAt = "2026-01-01T00:00:00Z";

json node(const std::string& name, const std::string& fabric) {
  return {{"apiVersion", "v1"}, {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"weft.dev/rdma", "ib"}, {"weft.dev/ib-fabric", fabric}}}}},
          {"status", {{"allocatable", {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}}}}}};
}

json group(const std::string& name, int min_member, bool same_fabric) {
  json g = {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
            {"metadata", {{"name", name}, {"namespace", "default"}}}, {"spec", {{"minMember", min_member}}}};
  if (same_fabric) g["metadata"]["annotations"] = {{"weft.dev/ib-cluster", "same"}};
  return g;
}

// A 4-cpu pod; bound to `node` at `bound_at` ("" = no PodScheduled time known).
json pod(const std::string& name, const std::string& group, const std::string& node = "",
         const std::string& bound_at = kBoundAt) {
  json p = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"schedulerName", "weft"},
                      {"containers", json::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", "4"}}}}}}})}}}};
  if (!group.empty()) p["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", group}};
  if (!node.empty()) {
    p["spec"]["nodeName"] = node;
    p["status"]["phase"] = "Running";
    if (!bound_at.empty())
      p["status"]["conditions"] = json::array({{{"type", "PodScheduled"}, {"status", "True"},
                                                {"lastTransitionTime", bound_at}}});
  }
  return p;
}

// Fabric b is full; in fabric a, gang g (4 of 4 cpu, same fabric) has two members running
// on a0. `free_slots_on_a0`: 2 leaves room for its two missing members, 1 does not.
// Waiting beside it: x, a gang of 2 that goes anywhere and, with a share of 0, comes first
// in drf's job order, and solo, a pod without a group.
struct Cluster {
  int free_slots_on_a0 = 2;
  std::string g_bound_at = kBoundAt;
  Decisions run(seconds after_binding, seconds timeout = seconds(60)) const {
    SnapshotBuilder b;
    auto add = [&](const json& o) { ASSERT_TRUE(b.add(o).ok()) << o.dump(); };
    for (const char* n : {"a0", "a1"}) add(node(n, "0xa"));
    for (const char* n : {"b0", "b1"}) add(node(n, "0xb"));
    add(group("full", 8, false));
    int filler = 0;
    for (const char* n : {"a1", "b0", "b1"})
      for (int i = 0; i < 4; ++i) add(pod("full-" + std::to_string(filler++), "full", n));
    for (int i = 0; i < 2 - free_slots_on_a0; ++i) add(pod("other-" + std::to_string(i), "", "a0"));
    add(group("g", 4, true));
    add(pod("g-0", "g", "a0", g_bound_at));
    add(pod("g-1", "g", "a0", g_bound_at));
    add(pod("g-2", "g"));
    add(pod("g-3", "g"));
    add(group("x", 2, false));
    add(pod("x-0", "x"));
    add(pod("x-1", "x"));
    add(pod("solo", ""));
    SessionOptions options;
    options.gang_repair_timeout = timeout;
    return run_session(b.build(kube::parse_rfc3339(kBoundAt).value() + after_binding), Config::defaults(), options);
  }
};

std::map<std::string, std::string> bindings(const Decisions& d) {
  std::map<std::string, std::string> out;
  for (const auto& b : d.bindings) out[b.pod] = b.node;
  return out;
}

std::set<std::string> evicted(const Decisions& d) {
  std::set<std::string> out;
  for (const auto& e : d.evictions) out.insert(e.pod);
  return out;
}

int events(const Decisions& d, const std::string& reason) {
  int n = 0;
  for (const auto& e : d.events) n += e.reason == reason && e.object == "default/g" ? 1 : 0;
  return n;
}

TEST(GangRepair, AHalfBoundGangIsCompletedInItsFabricBeforeOtherJobs) {
  const Decisions d = Cluster{}.run(seconds(10));
  const auto placed = bindings(d);
  EXPECT_EQ(placed.count("default/g-2") ? placed.at("default/g-2") : "", "a0");
  EXPECT_EQ(placed.count("default/g-3") ? placed.at("default/g-3") : "", "a0");
  EXPECT_FALSE(placed.count("default/x-0")) << "x took the room of g's missing members";
  EXPECT_TRUE(evicted(d).empty());
  ASSERT_EQ(d.gang_repairs.size(), 1u);
  EXPECT_EQ(d.gang_repairs[0].podgroup, "default/g");
  EXPECT_EQ(d.gang_repairs[0].result, "completed");
  EXPECT_EQ(events(d, "GangCompleted"), 1);
}

TEST(GangRepair, WhileItWaitsTheRoomInItsFabricIsHeldFromOtherJobs) {
  const Decisions d = Cluster{.free_slots_on_a0 = 1}.run(seconds(10));
  EXPECT_TRUE(bindings(d).empty()) << "the one free slot in g's fabric went to another job";
  EXPECT_TRUE(evicted(d).empty());
  EXPECT_TRUE(d.gang_repairs.empty());
  EXPECT_NE(d.unschedulable.at("default/g-2").find("room held in 0xa"), std::string::npos)
      << d.unschedulable.at("default/g-2");
}

TEST(GangRepair, PastTheTimeoutItsRunningMembersAreEvicted) {
  const Decisions d = Cluster{.free_slots_on_a0 = 1}.run(seconds(61));
  EXPECT_EQ(evicted(d), (std::set<std::string>{"default/g-0", "default/g-1"}));
  for (const auto& e : d.evictions) EXPECT_EQ(e.reason.rfind("gang-repair: ", 0), 0u) << e.reason;
  EXPECT_FALSE(bindings(d).count("default/g-2"));
  ASSERT_EQ(d.gang_repairs.size(), 1u);
  EXPECT_EQ(d.gang_repairs[0].result, "undone");
  EXPECT_EQ(events(d, "GangUndone"), 1);
  // The evicted members hold their nodes until they are gone: only a0's one free slot is used.
  int on_a0 = 0;
  for (const auto& [pod, node] : bindings(d)) on_a0 += node == "a0" ? 1 : 0;
  EXPECT_LE(on_a0, 1);
}

TEST(GangRepair, ATimeoutOfZeroNeverTakesItBack) {
  const Decisions d = Cluster{.free_slots_on_a0 = 1}.run(seconds(3600), seconds(0));
  EXPECT_TRUE(evicted(d).empty());
  EXPECT_TRUE(bindings(d).empty());
}

// Without a PodScheduled time (or startTime) nothing says how long it has waited: it is
// still completed first when it can be, but neither held for nor taken back.
TEST(GangRepair, WithoutABindingTimeItIsNeitherHeldForNorTakenBack) {
  const Decisions d = Cluster{.free_slots_on_a0 = 1, .g_bound_at = ""}.run(seconds(3600));
  EXPECT_TRUE(evicted(d).empty());
  EXPECT_FALSE(bindings(d).empty()) << "the free slot stays empty";
  EXPECT_EQ(Cluster{.g_bound_at = ""}.run(seconds(3600)).gang_repairs.size(), 1u);
}

}  // namespace
}  // namespace weft::scheduler
