// The dispatch decisions: queue capability over clusters, fair share by weight,
// fragmentation, preemption across clusters, NotReady members.
#include <gtest/gtest.h>

#include <map>

#include "tests/global/global_objects.h"

namespace weft::scheduler::global::testing {
namespace {

// Single-pod 8-GPU jobs in `queue`, suspended.
void add_jobs(std::vector<json>& o, const std::string& queue, int count, int& clock, int replicas = 1) {
  for (int i = 0; i < count; ++i) {
    std::string name = queue + "-" + std::to_string(i);
    o.push_back(vcjob("ml", name, queue, replicas, 8));
    o.push_back(binding("ml", name, replicas, at_second(clock++)));
  }
}

std::map<std::string, int64_t> gpus_per_member(const GlobalDecisions& d) {
  std::map<std::string, int64_t> out;
  for (const auto& b : d.bindings)
    for (const auto& c : b.clusters) out[c.name] += 8 * c.replicas;
  return out;
}

TEST(GlobalDispatch, CapabilityCapsTheSumOverClustersExactly) {
  std::vector<json> o;
  add_member(o, "m1", 4);
  add_member(o, "m2", 4);
  o.push_back(queue("team", 1, 40));   // 40 of the 64 GPUs
  int clock = 0;
  add_jobs(o, "team", 10, clock);
  GlobalDecisions d = decide(o);
  EXPECT_EQ(allocated_gpus(d, "team"), 40);
  int dispatched = 0;
  for (const auto& b : d.bindings) {
    if (!b.suspended) {
      ++dispatched;
      continue;
    }
    EXPECT_NE(b.reason.find("queue team at its capability (nvidia.com/gpu: 40 allocated + 8 asked > capability 40)"),
                   std::string::npos) << b.reason;
  }
  EXPECT_EQ(dispatched, 5);
  // Both members are used (best fit fills one member first, the capability stops at 40).
  auto per = gpus_per_member(d);
  EXPECT_EQ(per["m1"] + per["m2"], 40);
}

TEST(GlobalDispatch, CapacityOfEachMemberHoldsExactly) {
  std::vector<json> o;
  add_member(o, "m1", 3);
  add_member(o, "m2", 2);
  o.push_back(queue("team", 1));
  int clock = 0;
  add_jobs(o, "team", 9, clock);
  GlobalDecisions d = decide(o);
  auto per = gpus_per_member(d);
  EXPECT_EQ(per["m1"], 24);
  EXPECT_EQ(per["m2"], 16);
  EXPECT_EQ(d.stats.dispatched, 5);
  EXPECT_EQ(d.stats.suspended, 4);
}

// Two members of 8 GPU nodes (128 GPUs), 40 one-pod 8-GPU jobs in each queue, the
// first queue's jobs older (FIFO alone would give it everything).
GlobalDecisions two_queues(json first, json second) {
  std::vector<json> o;
  add_member(o, "m1", 8);
  add_member(o, "m2", 8);
  const std::string a = first["metadata"]["name"], b = second["metadata"]["name"];
  o.push_back(std::move(first));
  o.push_back(std::move(second));
  int clock = 0;
  add_jobs(o, a, 40, clock);
  add_jobs(o, b, 40, clock);
  return decide(o);
}

TEST(GlobalDispatch, FairShareBetweenTwoQueuesFollowsTheirWeights) {
  GlobalDecisions d = two_queues(queue("light", 1), queue("heavy", 3));
  EXPECT_EQ(allocated_gpus(d, "light"), 32);
  EXPECT_EQ(allocated_gpus(d, "heavy"), 96);
  for (const auto& q : d.queues) {
    if (q.name == "light") {
      EXPECT_EQ(q.deserved.at("nvidia.com/gpu"), 32000);
    }
  }
  EXPECT_NE(find(d, "ml/light-39-job").reason.find("deserved share"), std::string::npos) << find(d, "ml/light-39-job").reason;
}

TEST(GlobalDispatch, SpecDeservedIsTheShareOutright) {
  json fixed = queue("fixed", 1);
  fixed["spec"]["deserved"] = {{"nvidia.com/gpu", "16"}};
  GlobalDecisions d = two_queues(fixed, queue("rest", 1));
  EXPECT_EQ(allocated_gpus(d, "fixed"), 16);
  EXPECT_EQ(allocated_gpus(d, "rest"), 112);
}

TEST(GlobalDispatch, FairShareConvergesOverCyclesAsJobsFinish) {
  // Each cycle the dispatched jobs of the previous one finish; the split stays 1:3.
  int clock = 0;
  std::vector<json> base;
  add_member(base, "m1", 4);
  add_member(base, "m2", 4);   // 64 GPUs
  base.push_back(queue("light", 1));
  base.push_back(queue("heavy", 3));
  std::vector<json> jobs;
  add_jobs(jobs, "light", 60, clock);
  add_jobs(jobs, "heavy", 60, clock);
  int64_t light = 0, heavy = 0;
  std::set<std::string> done;
  for (int cycle = 0; cycle < 4; ++cycle) {
    std::vector<json> o = base;
    for (size_t i = 0; i < jobs.size(); i += 2) {
      std::string key = "ml/" + jobs[i + 1]["metadata"]["name"].get<std::string>();
      if (done.count(key)) continue;
      o.push_back(jobs[i]);
      o.push_back(jobs[i + 1]);
    }
    GlobalDecisions d = decide(o);
    light += allocated_gpus(d, "light");
    heavy += allocated_gpus(d, "heavy");
    for (const auto& b : d.bindings)
      if (!b.suspended) done.insert(b.key);
  }
  EXPECT_EQ(light * 3, heavy) << light << " vs " << heavy;
}

TEST(GlobalDispatch, FragmentedGangStaysSuspendedThoughSummedCapacityIsEnough) {
  std::vector<json> o;
  add_member(o, "m1", 4);
  add_member(o, "m2", 4);
  o.push_back(queue("team", 1));
  // Every node runs a 4-GPU pod: 16 GPUs free per member, in halves.
  for (const char* m : {"m1", "m2"})
    for (int i = 0; i < 4; ++i) {
      json p = job_pod(m, "other", "busy", i, std::string(m) + "-n" + std::to_string(i), 4);
      o.push_back(p);
    }
  add_job(o, "big", "team", 2, 1);
  GlobalDecisions d = decide(o);
  const auto& b = find(d, "ml/big-job");
  EXPECT_TRUE(b.suspended);
  EXPECT_TRUE(b.clusters.empty());
  EXPECT_EQ(b.reason_code, "NoClusterFit");
  EXPECT_EQ(b.reason.rfind("fragmentation: the free capacity summed over a member's nodes is enough", 0), 0u) << b.reason;
  EXPECT_NE(b.reason.find("m1: "), std::string::npos);
  EXPECT_NE(b.reason.find("m2: "), std::string::npos);
  EXPECT_EQ(allocated_gpus(d, "team"), 0);
}

TEST(GlobalDispatch, NoSingleMemberHasTheRoomThoughAllTogetherHave) {
  std::vector<json> o;
  add_member(o, "m1", 2);
  add_member(o, "m2", 2);
  o.push_back(queue("team", 1));
  add_job(o, "wide", "team", 3, 1);   // 24 GPUs, 16 per member
  GlobalDecisions d = decide(o);
  const auto& b = find(d, "ml/wide-job");
  EXPECT_TRUE(b.suspended);
  EXPECT_EQ(b.reason.rfind("fragmentation: the free capacity summed over the member clusters is enough", 0), 0u) << b.reason;
}

TEST(GlobalDispatch, PreemptionAcrossClustersTakesBackExactlyWhatIsNeeded) {
  std::vector<json> o;
  add_member(o, "m1", 2);
  add_member(o, "m2", 2);
  o.push_back(queue("team", 1, 32));
  o.push_back(priority_class("low", 1));
  o.push_back(priority_class("high", 100));
  // Four dispatched one-pod jobs fill both members and the queue's capability.
  const char* where[] = {"m1", "m2", "m1", "m2"};
  for (int i = 0; i < 4; ++i) {
    std::string name = "low-" + std::to_string(i);
    o.push_back(vcjob("ml", name, "team", 1, 8, "low"));
    o.push_back(binding("ml", name, 1, at_second(i), where[i]));
    o.push_back(job_pod(where[i], "ml", name, 0, std::string(where[i]) + "-n" + std::to_string(i / 2), 8));
  }
  o.push_back(vcjob("ml", "urgent", "team", 2, 8, "high"));
  o.push_back(binding("ml", "urgent", 2, at_second(10)));
  GlobalDecisions d = decide(o);
  const auto& u = find(d, "ml/urgent-job");
  EXPECT_FALSE(u.suspended) << u.reason;
  ASSERT_EQ(u.clusters.size(), 1u);
  // Two victims on one member make the room; of the two choices the newer jobs go.
  EXPECT_EQ(u.clusters[0].name, "m2");
  EXPECT_EQ(u.clusters[0].replicas, 2);
  EXPECT_EQ(d.stats.preempted, 2);
  EXPECT_TRUE(find(d, "ml/low-1-job").suspended);
  EXPECT_TRUE(find(d, "ml/low-3-job").suspended);
  EXPECT_TRUE(find(d, "ml/low-1-job").clusters.empty());
  EXPECT_FALSE(find(d, "ml/low-0-job").suspended);
  EXPECT_FALSE(find(d, "ml/low-2-job").suspended);
  EXPECT_EQ(find(d, "ml/low-3-job").reason_code, "Preempted");
  EXPECT_EQ(allocated_gpus(d, "team"), 32);
}

TEST(GlobalDispatch, NoPreemptionWhenTakingBackCannotMakeRoom) {
  std::vector<json> o;
  add_member(o, "m1", 2);
  o.push_back(queue("team", 1, 16));
  o.push_back(priority_class("low", 1));
  o.push_back(priority_class("high", 100));
  o.push_back(vcjob("ml", "low-0", "team", 1, 8, "low"));
  o.push_back(binding("ml", "low-0", 1, at_second(0), "m1"));
  o.push_back(vcjob("ml", "same", "team", 1, 8, "high"));   // equal priority is no victim
  o.push_back(binding("ml", "same", 1, at_second(1), "m1"));
  o.push_back(vcjob("ml", "huge", "team", 3, 8, "high"));    // 24 > capability 16 even with all back
  o.push_back(binding("ml", "huge", 3, at_second(2)));
  GlobalDecisions d = decide(o);
  EXPECT_TRUE(find(d, "ml/huge-job").suspended);
  EXPECT_EQ(d.stats.preempted, 0);
  EXPECT_FALSE(find(d, "ml/low-0-job").suspended);
}

TEST(GlobalDispatch, NotReadyMemberGetsNothingNew) {
  std::vector<json> o;
  add_member(o, "m1", 8, false);
  add_member(o, "m2", 1);
  o.push_back(queue("team", 1));
  add_job(o, "old", "team", 1, 0, "m1");   // dispatched before m1 went NotReady
  add_job(o, "pinned", "team", 1, 1);
  o.back()["spec"]["placement"]["clusterAffinity"]["clusterNames"] = {"m1"};
  int clock = 2;
  add_jobs(o, "team", 3, clock);
  GlobalDecisions d = decide(o);
  auto per = gpus_per_member(d);
  EXPECT_EQ(per["m1"], 8);   // only the old one stays there
  EXPECT_EQ(per["m2"], 8);
  EXPECT_FALSE(find(d, "ml/old-job").suspended);
  const auto& left = find(d, "ml/pinned-job");
  EXPECT_TRUE(left.suspended);
  EXPECT_NE(left.reason.find("m1: NotReady (Ready is False (ClusterNotReachable))"), std::string::npos) << left.reason;
}

TEST(GlobalDispatch, ClusterAffinityAndTaintsChooseTheMembers) {
  std::vector<json> o;
  add_member(o, "m1", 2);
  add_member(o, "m2", 2);
  json& m2 = o[3];
  ASSERT_EQ(m2["metadata"]["name"], "m2");
  m2["spec"]["taints"] = {{{"key", "maintenance"}, {"effect", "NoSchedule"}}};
  o.push_back(queue("team", 1));
  int clock = 0;
  add_jobs(o, "team", 3, clock);
  o[o.size() - 1]["spec"]["placement"] = {{"clusterAffinity", {{"clusterNames", {"m2"}}}},
                                          {"clusterTolerations", {{{"key", "maintenance"}, {"operator", "Exists"}}}}};
  GlobalDecisions d = decide(o);
  EXPECT_EQ(find(d, "ml/team-2-job").clusters.at(0).name, "m2");
  EXPECT_EQ(find(d, "ml/team-0-job").clusters.at(0).name, "m1");
  EXPECT_EQ(find(d, "ml/team-1-job").clusters.at(0).name, "m1");
}

TEST(GlobalDispatch, DispatchedBindingsHoldTheirMembersBeforeTheirPodsExist) {
  std::vector<json> o;
  add_member(o, "m1", 2);
  o.push_back(queue("team", 1));
  add_job(o, "first", "team", 2, 0, "m1");   // no pods in m1 yet
  add_job(o, "second", "team", 1, 1);
  GlobalDecisions d = decide(o);
  EXPECT_TRUE(find(d, "ml/second-job").suspended);
  EXPECT_EQ(allocated_gpus(d, "team"), 16);
}

// A replica being replaced: its old pod is being deleted (Volcano's Releasing) and still
// holds its node; it is not one of the binding's bound replicas, so the member keeps room
// for the pending replacement as well.
TEST(GlobalDispatch, PodsBeingDeletedAreNotBoundReplicasButHoldTheirNodes) {
  std::vector<json> o;
  add_member(o, "m1", 3);
  o.push_back(queue("team", 1));
  add_job(o, "first", "team", 2, 0, "m1");
  o.push_back(job_pod("m1", "ml", "first", 0, "m1-n0", 8));
  json leaving = job_pod("m1", "ml", "first", 1, "m1-n1", 8);
  leaving["metadata"]["deletionTimestamp"] = at_second(5);
  o.push_back(leaving);
  json replacement = job_pod("m1", "ml", "first", 2, "", 8);
  replacement["spec"].erase("nodeName");
  replacement["status"]["phase"] = "Pending";
  o.push_back(replacement);
  add_job(o, "second", "team", 1, 1);   // would fit only in the replacement's room (m1-n2)
  GlobalDecisions d = decide(o);
  const auto& second = find(d, "ml/second-job");
  EXPECT_TRUE(second.suspended) << second.reason;
  EXPECT_TRUE(second.clusters.empty());
  EXPECT_EQ(allocated_gpus(d, "team"), 16);
}

}  // namespace
}  // namespace weft::scheduler::global::testing

namespace weft::scheduler::global::testing {
namespace {

json deployment(const std::string& name, int replicas) {
  return {{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", "ml"}, {"annotations", {{"scheduling.volcano.sh/queue-name", "team"}}}}},
          {"spec", {{"replicas", replicas},
                    {"template", {{"spec", {{"containers", {{{"name", "s"}, {"resources", {{"requests",
                        {{"cpu", "8"}, {"nvidia.com/gpu", "8"}}}}}}}}}}}}}}};
}

json divided_binding(const std::string& kind_api, const std::string& kind, const std::string& name, int replicas) {
  json b = binding("ml", name, replicas, "2026-01-01T00:00:00Z");
  b["spec"]["resource"] = {{"apiVersion", kind_api}, {"kind", kind}, {"name", name}, {"namespace", "ml"}};
  b["spec"]["placement"]["replicaScheduling"] = {{"replicaSchedulingType", "Divided"}};
  return b;
}

TEST(GlobalDivision, DividedDeploymentIsSplitWhereNoMemberTakesItWhole) {
  std::vector<json> o = {cluster("m1"), gpu_node("m1", "a1"), gpu_node("m1", "a2"), cluster("m2"),
                         gpu_node("m2", "b1"), gpu_node("m2", "b2"), gpu_node("m2", "b3"), queue("team", 1)};
  o.push_back(deployment("serve", 4));
  o.push_back(divided_binding("apps/v1", "Deployment", "serve", 4));
  GlobalDecisions d = decide(o);
  const auto& b = find(d, "ml/serve-job");
  ASSERT_FALSE(b.suspended) << b.reason;
  ASSERT_EQ(b.clusters.size(), 2u);
  EXPECT_EQ(b.clusters[0].name, "m2");   // the most free first: as few parts as possible
  EXPECT_EQ(b.clusters[0].replicas, 3);
  EXPECT_EQ(b.clusters[1].name, "m1");
  EXPECT_EQ(b.clusters[1].replicas, 1);
  EXPECT_EQ(allocated_gpus(d, "team"), 32);
}

TEST(GlobalDivision, AVolcanoJobIsNeverSplitAndDivisionIsAllOrNothing) {
  std::vector<json> o = {cluster("m1"), gpu_node("m1", "a1"), gpu_node("m1", "a2"), cluster("m2"),
                         gpu_node("m2", "b1"), gpu_node("m2", "b2"), queue("team", 1)};
  o.push_back(vcjob("ml", "gang", "team", 3, 8));
  o.push_back(divided_binding("batch.volcano.sh/v1alpha1", "Job", "gang", 3));
  o.push_back(deployment("big", 5));   // 40 GPUs, 32 in all
  o.push_back(divided_binding("apps/v1", "Deployment", "big", 5));
  o.back()["metadata"]["name"] = "big-job";
  GlobalDecisions d = decide(o);
  EXPECT_TRUE(find(d, "ml/gang-job").suspended);
  EXPECT_TRUE(find(d, "ml/big-job").suspended);
  EXPECT_EQ(allocated_gpus(d, "team"), 0);
}

TEST(GlobalDivision, ADividedBindingHoldsEachOfItsMembers) {
  // a2 runs someone else's pod: the queue's share (24 usable) leaves room for one more.
  std::vector<json> o = {cluster("m1"), gpu_node("m1", "a1"), gpu_node("m1", "a2"), cluster("m2"), gpu_node("m2", "b1"),
                         job_pod("m1", "other", "busy", 0, "a2", 8), queue("team", 1)};
  o.push_back(deployment("serve", 2));
  json held = divided_binding("apps/v1", "Deployment", "serve", 2);
  held["spec"]["suspension"]["scheduling"] = false;
  held["spec"]["clusters"] = {{{"name", "m1"}, {"replicas", 1}}, {{"name", "m2"}, {"replicas", 1}}};
  o.push_back(held);
  o.push_back(vcjob("ml", "next", "team", 1, 8));
  o.push_back(binding("ml", "next", 1, "2026-01-01T00:00:05Z"));
  GlobalDecisions d = decide(o);
  const auto& next = find(d, "ml/next-job");
  EXPECT_TRUE(next.suspended);
  EXPECT_NE(next.reason.find("m1: not enough free capacity"), std::string::npos) << next.reason;
  EXPECT_NE(next.reason.find("m2: not enough free capacity"), std::string::npos) << next.reason;
}

}  // namespace
}  // namespace weft::scheduler::global::testing
