// Taking back across clusters: preemption inside a queue at its capability frees exactly
// what the gang needs wherever the victims run; reclaim between queues takes only what a
// reclaimable queue holds beyond its deserved share, never from `reclaimable: false`,
// and what it took is not taken back in the next cycle.
#include <gtest/gtest.h>

#include <set>

#include "tests/global/global_objects.h"

namespace weft::scheduler::global::testing {
namespace {

// m1 and m2, two 8-GPU nodes each.
std::vector<json> two_small_members() {
  std::vector<json> o;
  add_member(o, "m1", 2);
  add_member(o, "m2", 2);
  return o;
}

// Queue "a" holds four one-pod jobs filling m1 and m2 (2 nodes each); "b" (same weight)
// submits a gang of two 8-GPU pods. Deserved: 16 GPUs each.
std::vector<json> a_fills_both_members(bool a_reclaimable = true) {
  std::vector<json> o = two_small_members();
  json a = queue("a", 1);
  if (!a_reclaimable) a["spec"]["reclaimable"] = false;
  o.push_back(a);
  o.push_back(queue("b", 1));
  const char* where[] = {"m1", "m2", "m1", "m2"};
  for (int i = 0; i < 4; ++i) {
    std::string name = "a-" + std::to_string(i);
    add_job(o, name, "a", 1, i, where[i]);
    o.push_back(job_pod(where[i], "ml", name, 0, std::string(where[i]) + "-n" + std::to_string(i / 2), 8));
  }
  add_job(o, "b-wide", "b", 2, 10);
  return o;
}

std::set<std::string> taken_back(const GlobalDecisions& d) {
  std::set<std::string> out;
  for (const auto& b : d.bindings)
    if (b.action == BindingDecision::Action::Preempt) out.insert(b.key);
  return out;
}

TEST(GlobalReclaim, TakesBackExactlyWhatAQueueHoldsBeyondItsShare) {
  GlobalDecisions d = decide(a_fills_both_members());
  const auto& b = find(d, "ml/b-wide-job");
  ASSERT_FALSE(b.suspended) << b.reason;
  // Two victims on one member make room for the gang; of m1's and m2's, the newer go.
  ASSERT_EQ(b.clusters.size(), 1u);
  EXPECT_EQ(b.clusters[0].name, "m2");
  EXPECT_EQ(b.clusters[0].replicas, 2);
  EXPECT_EQ(taken_back(d), (std::set<std::string>{"ml/a-1-job", "ml/a-3-job"}));
  const auto& v = find(d, "ml/a-3-job");
  EXPECT_TRUE(v.suspended);
  EXPECT_TRUE(v.clusters.empty());
  EXPECT_EQ(v.reason_code, "Reclaimed");
  EXPECT_NE(v.reason.find("reclaimed for ml/b-wide-job of queue b"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("queue a holds more than its deserved share (cpu 32, memory 256Gi, nvidia.com/gpu 32 allocated"),
            std::string::npos) << v.reason;
  EXPECT_EQ(allocated_gpus(d, "a"), 16);
  EXPECT_EQ(allocated_gpus(d, "b"), 16);
}

TEST(GlobalReclaim, ANonReclaimableQueueKeepsWhatItHolds) {
  GlobalDecisions d = decide(a_fills_both_members(false));
  const auto& b = find(d, "ml/b-wide-job");
  EXPECT_TRUE(b.suspended);
  EXPECT_EQ(b.reason_code, "NoClusterFit") << b.reason;
  EXPECT_TRUE(taken_back(d).empty());
  EXPECT_EQ(allocated_gpus(d, "a"), 32);
}

TEST(GlobalReclaim, WhatWasReclaimedIsNotTakenBackInTheNextCycle) {
  std::vector<json> o = a_fills_both_members();
  GlobalDecisions first = decide(o);
  ASSERT_EQ(taken_back(first).size(), 2u);
  // The next cycle sees what was written: victims suspended without clusters and their
  // pods gone from m2, b-wide dispatched to m2 (its pods not created yet).
  std::vector<json> next;
  for (auto obj : o) {
    const std::string kind = obj["kind"], name = obj["metadata"]["name"];
    if (kind == "Pod" && (name == "a-1-worker-0" || name == "a-3-worker-0")) continue;
    if (kind == "ResourceBinding" && taken_back(first).count("ml/" + name)) {
      obj["spec"]["suspension"]["scheduling"] = true;
      obj["spec"]["clusters"] = json::array();
    }
    if (kind == "ResourceBinding" && name == "b-wide-job") {
      obj["spec"]["suspension"]["scheduling"] = false;
      obj["spec"]["clusters"] = {{{"name", "m2"}, {"replicas", 2}}};
    }
    next.push_back(obj);
  }
  GlobalDecisions second = decide(next);
  EXPECT_TRUE(taken_back(second).empty());
  EXPECT_EQ(second.stats.dispatched, 0);
  for (const char* key : {"ml/a-1-job", "ml/a-3-job"}) {
    const auto& v = find(second, key);
    EXPECT_TRUE(v.suspended);
    EXPECT_EQ(v.reason_code, "QueueOverused") << v.reason;
  }
  EXPECT_EQ(find(second, "ml/b-wide-job").clusters[0].name, "m2");
  EXPECT_EQ(allocated_gpus(second, "a"), 16);
  EXPECT_EQ(allocated_gpus(second, "b"), 16);
}

TEST(GlobalReclaim, NeverTakesAQueueBelowItsShare) {
  // "a" holds two 2-pod jobs (32 GPUs), 8 beyond its share of 24; b asks one 8-GPU pod.
  // Each victim would take 16 from "a": Volcano's reclaim would, weft does not.
  std::vector<json> o = two_small_members();
  o.push_back(queue("a", 1));
  o.push_back(queue("b", 1));
  add_job(o, "a-0", "a", 2, 0, "m1");
  add_job(o, "a-1", "a", 2, 1, "m2");
  add_job(o, "b-small", "b", 1, 10);
  GlobalDecisions d = decide(o);
  const auto& b = find(d, "ml/b-small-job");
  EXPECT_TRUE(b.suspended);
  EXPECT_NE(b.reason.find("reclaiming what other queues hold beyond their deserved shares would not make room"),
            std::string::npos) << b.reason;
  EXPECT_TRUE(taken_back(d).empty());
  EXPECT_EQ(allocated_gpus(d, "a"), 32);
}

TEST(GlobalReclaim, AQueueThatWouldPassItsShareReclaimsNothing) {
  // b's gang of three pods (24 GPUs) is beyond b's deserved 16.
  std::vector<json> o = a_fills_both_members();
  for (auto& obj : o)
    if (obj["kind"] == "Job" && obj["metadata"]["name"] == "b-wide") {
      obj["spec"]["minAvailable"] = 3;
      obj["spec"]["tasks"][0]["replicas"] = 3;
    }
  GlobalDecisions d = decide(o);
  EXPECT_TRUE(find(d, "ml/b-wide-job").suspended);
  EXPECT_TRUE(taken_back(d).empty());
  EXPECT_EQ(allocated_gpus(d, "a"), 32);
}

TEST(GlobalPreemption, AtCapabilityOneVictimWhereverItRunsWhenTheGangHasRoom) {
  // team (capability 24) holds 3 one-pod jobs; m1 has a node free. The urgent one-pod job
  // needs 8 GPUs of capability back, not room: exactly one victim, the newest, on m2.
  std::vector<json> o = two_small_members();
  o.push_back(queue("team", 1, 24));
  o.push_back(priority_class("low", 1));
  o.push_back(priority_class("high", 100));
  const char* where[] = {"m1", "m2", "m2"};
  for (int i = 0; i < 3; ++i) {
    std::string name = "low-" + std::to_string(i);
    o.push_back(vcjob("ml", name, "team", 1, 8, "low"));
    o.push_back(binding("ml", name, 1, at_second(i), where[i]));
    o.push_back(job_pod(where[i], "ml", name, 0, std::string(where[i]) + "-n" + std::to_string(i == 2 ? 1 : 0), 8));
  }
  o.push_back(vcjob("ml", "urgent", "team", 1, 8, "high"));
  o.push_back(binding("ml", "urgent", 1, at_second(10)));
  GlobalDecisions d = decide(o);
  const auto& u = find(d, "ml/urgent-job");
  ASSERT_FALSE(u.suspended) << u.reason;
  EXPECT_EQ(taken_back(d), (std::set<std::string>{"ml/low-2-job"}));
  EXPECT_EQ(find(d, "ml/low-2-job").reason_code, "Preempted");
  EXPECT_EQ(allocated_gpus(d, "team"), 24);
}

}  // namespace
}  // namespace weft::scheduler::global::testing
