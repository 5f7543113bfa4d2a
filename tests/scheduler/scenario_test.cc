// Scenario tests: each YAML file in scenarios/ through the simulator, asserting the
// placements, evictions, shares and status writes the semantics call for.
#include <gtest/gtest.h>

#include <set>

#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler::testing {
namespace {

double cores(const nlohmann::json& q, const char* what) { return q[what]["cpu"].get<double>(); }

TEST(Scenario, ThreeEqualQueuesIgnoreTaintedControlPlane) {
  auto run = run_scenario("three_queues_tainted_control_plane");
  for (const char* q : {"team-a", "team-b", "team-c"}) {
    auto queue = run.queue(q);
    EXPECT_DOUBLE_EQ(cores(queue, "deserved"), 8.0) << q;
    EXPECT_DOUBLE_EQ(cores(queue, "allocated"), 8.0) << q;
    EXPECT_DOUBLE_EQ(queue["deserved"]["memory"].get<double>(), 12.0 * 1024 * 1024 * 1024) << q;
  }
  for (const auto& p : run.report()["pods"]) EXPECT_NE(p["node"], "cp-0") << p["pod"];
  EXPECT_NE(run.reason_of("default/a-job-9-0").find("deserved share of cpu"), std::string::npos)
      << run.reason_of("default/a-job-9-0");
}

TEST(Scenario, LateQueueReclaimsItsShare) {
  auto run = run_scenario("late_queue_reclaims");
  const auto& evictions = run.report()["evictions"];
  ASSERT_EQ(evictions.size(), 8u);
  for (const auto& e : evictions) {
    EXPECT_EQ(e["pod"].get<std::string>().rfind("default/a-", 0), 0u) << e;
    EXPECT_EQ(e["cycle"], 2);
    EXPECT_NE(e["reason"].get<std::string>().find("reclaim"), std::string::npos);
  }
  EXPECT_DOUBLE_EQ(cores(run.queue("team-a"), "deserved"), 8.0);
  EXPECT_DOUBLE_EQ(cores(run.queue("team-b"), "deserved"), 8.0);
  EXPECT_DOUBLE_EQ(cores(run.queue("team-a"), "allocated"), 8.0);
  EXPECT_DOUBLE_EQ(cores(run.queue("team-b"), "allocated"), 8.0);
  for (int i = 0; i < 8; ++i) EXPECT_NE(run.node_of("default/b-" + std::to_string(i) + "-0"), "");
  // Stable afterwards: nothing evicted twice, nothing bound after the reclaim settled.
  for (const auto& b : run.report()["bindings"]) EXPECT_LE(b["cycle"].get<int>(), 3);
}

TEST(Scenario, GangFittingNoIbClusterStaysPendingWhileAnotherTakesBestCluster) {
  auto run = run_scenario("ib_cluster_gang");
  EXPECT_EQ(run.bound_in("big"), 0);
  EXPECT_EQ(run.podgroup("default/big")["phase"], "Inqueue");
  EXPECT_NE(run.reason_of("default/big-0").find("no single IB cluster"), std::string::npos)
      << run.reason_of("default/big-0");
  EXPECT_NE(run.reason_of("default/big-0").find("untolerated taint {maintenance: true}"), std::string::npos)
      << run.reason_of("default/big-0");
  std::set<std::string> nodes;
  for (int i = 0; i < 3; ++i) nodes.insert(run.node_of("default/fit-" + std::to_string(i)));
  EXPECT_EQ(nodes, (std::set<std::string>{"b-0", "b-1", "b-2"}));
  EXPECT_EQ(run.podgroup("default/fit")["phase"], "Running");
}

TEST(Scenario, IbClusterBestFitIsLeastFreeCapacityLeft) {
  auto run = run_scenario("ib_cluster_best_fit");
  EXPECT_EQ(run.node_of("default/pair-0").rfind("z-", 0), 0u);
  EXPECT_EQ(run.node_of("default/pair-1").rfind("z-", 0), 0u);
}

TEST(Scenario, HardHyperNodeTiers) {
  auto run = run_scenario("hypernode_hard");
  std::set<std::string> t1;
  for (int i = 0; i < 3; ++i) t1.insert(run.node_of("default/hard-t1-" + std::to_string(i)));
  EXPECT_EQ(t1, (std::set<std::string>{"n2", "n3", "n4"}));
  EXPECT_EQ(run.bound_in("hard-t1-big"), 0);
  EXPECT_NE(run.reason_of("default/hard-t1-big-0").find("no single HyperNode of tier <= 1"), std::string::npos)
      << run.reason_of("default/hard-t1-big-0");
  EXPECT_EQ(run.bound_in("hard-t2"), 2);
  for (int i = 0; i < 2; ++i) {
    std::string n = run.node_of("default/hard-t2-" + std::to_string(i));
    EXPECT_TRUE(n == "n0" || n == "n1") << n;
  }
}

TEST(Scenario, SoftHyperNodeFallsBackFillingRoomiestDomainFirst) {
  auto run = run_scenario("hypernode_soft_derived");
  EXPECT_EQ(run.bound_in("soft-job"), 5);
  int in_l3 = 0;
  for (int i = 0; i < 5; ++i) {
    std::string n = run.node_of("default/soft-job-" + std::to_string(i));
    if (n == "n4" || n == "n5" || n == "n6") ++in_l3;
  }
  EXPECT_EQ(in_l3, 3);
  // hard-job (2 pods, tier 1) needs a whole leaf: the two soft pods left one of L1/L2 empty.
  std::string a = run.node_of("default/hard-job-0"), b = run.node_of("default/hard-job-1");
  ASSERT_NE(a, "");
  ASSERT_NE(b, "");
  std::set<std::string> pair{a, b};
  EXPECT_TRUE(pair == (std::set<std::string>{"n0", "n1"}) || pair == (std::set<std::string>{"n2", "n3"}));
}

TEST(Scenario, EmptyPodGroupIsNeverWritten) {
  auto run = run_scenario("empty_podgroup");
  auto empty = run.podgroup("default/empty");
  EXPECT_EQ(empty["status_writes"], 0);
  EXPECT_EQ(empty["phase"], "Pending");
  auto used = run.podgroup("default/used");
  EXPECT_EQ(used["status_writes"], 1);
  EXPECT_EQ(used["phase"], "Running");
  EXPECT_EQ(used["scheduled"], 1);
}

TEST(Scenario, GangIsAllOrNothing) {
  auto run = run_scenario("gang_all_or_nothing");
  EXPECT_EQ(run.bound_in("gang"), 0);
  EXPECT_EQ(run.bound_in("solo"), 1);
  EXPECT_NE(run.reason_of("default/gang-0").find("gang needs 3 at once"), std::string::npos)
      << run.reason_of("default/gang-0");
}

TEST(Scenario, MissingQueueLeavesJobPendingWithReasonUntilItArrives) {
  auto run = run_scenario("queue_arrives_late");
  ASSERT_EQ(run.report()["bindings"].size(), 1u);
  EXPECT_EQ(run.report()["bindings"][0]["cycle"], 3);
  auto g = run.podgroup("default/job");
  EXPECT_EQ(g["phase"], "Running");
  EXPECT_EQ(g["status_writes"], 2);   // Pending (QueueNotFound), then Running
}

TEST(Scenario, CapabilityCapsAndPriorityOrders) {
  auto run = run_scenario("capability_and_priority");
  EXPECT_EQ(run.node_of("default/high-0"), "n0");
  EXPECT_EQ(run.node_of("default/low-0"), "");
  EXPECT_DOUBLE_EQ(cores(run.queue("capped"), "allocated"), 2.0);
}

TEST(Scenario, BackfillPlacesBestEffortPodsWithinPodCount) {
  auto run = run_scenario("backfill_best_effort");
  EXPECT_EQ(run.node_of("default/full-0"), "n0");
  int placed = 0;
  for (int i = 0; i < 3; ++i) placed += run.node_of("default/be-" + std::to_string(i)).empty() ? 0 : 1;
  EXPECT_EQ(placed, 2);   // pods: 3 on the node, one taken by full-0
  EXPECT_NE(run.reason_of("default/be-2").find("Too many pods"), std::string::npos) << run.reason_of("default/be-2");
}

TEST(Scenario, PodFilters) {
  auto run = run_scenario("pod_filters");
  EXPECT_EQ(run.node_of("default/wants-ssd"), "ssd");
  EXPECT_EQ(run.node_of("default/wants-z2"), "gpu");
  EXPECT_EQ(run.node_of("default/wants-z2-untolerated"), "");
  std::string why = run.reason_of("default/wants-z2-untolerated");
  EXPECT_NE(why.find("untolerated taint {nvidia.com/gpu: }"), std::string::npos) << why;
  EXPECT_NE(why.find("were unschedulable"), std::string::npos) << why;
  EXPECT_NE(why.find("were not ready"), std::string::npos) << why;
}

TEST(Scenario, LoadAwareScoringIgnoresStaleReports) {
  auto run = run_scenario("load_aware", "2026-01-01T00:01:00Z");
  EXPECT_EQ(run.node_of("default/p"), "n-idle");
  // Later, n-idle's report is stale too and n-busy's is still the only... all reports stale:
  // then no node is preferred by load and the name decides.
  auto later = run_scenario("load_aware", "2026-03-01T00:00:00Z");
  EXPECT_EQ(later.node_of("default/p"), "n-busy");
}

}  // namespace
}  // namespace weft::scheduler::testing
