// weft-scheduler run's metrics one cycle at a time: series of queues and reasons that are
// gone are removed (not left at their last value), a gang's wait is observed once, the
// eviction reasons map to preemptions and reclaims, /healthz fails only for a wedged leader.
#include <gtest/gtest.h>

#include <thread>

#include "kube/time.h"
#include "scheduler/app/run_metrics.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;
using std::chrono::system_clock;

PodInfo pod(const std::string& key, const std::string& group, const std::string& node = "") {
  PodInfo p;
  p.key = key;
  p.group = group;
  p.node = node;
  p.phase = node.empty() ? "Pending" : "Running";
  return p;
}

json object(const std::string& uid, system_clock::time_point created) {
  return {{"metadata", {{"uid", uid}, {"creationTimestamp", kube::format_rfc3339(created)}}}};
}

bool has(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }
bool has_series(const std::string& text, const std::string& series) {
  return text.find("\n" + series + " ") != std::string::npos;
}

TEST(RunMetrics, EvictionReasonsNameTheirAction) {
  EXPECT_EQ(eviction_action("reclaim: queue q1 is above its deserved share"), "reclaim");
  EXPECT_EQ(eviction_action("preempt: job ns/j (priority 10)"), "preempt");
  EXPECT_EQ(eviction_action("gang rollback"), "");
  EXPECT_EQ(eviction_action("taken back: the API refused: member"), "");
}

TEST(RunMetrics, OneCycleAfterAnother) {
  RunMetrics m("9.9.9");
  // Whole seconds: creation timestamps have no fraction.
  const system_clock::time_point now = std::chrono::floor<std::chrono::seconds>(system_clock::now());
  Snapshot snap;
  snap.pods = {pod("ns/a-0", "ns/a"), pod("ns/a-1", "ns/a"), pod("ns/v", "", "n1"), pod("ns/b-0", "ns/b")};
  snap.podgroups["ns/a"].key = "ns/a";
  snap.podgroups["ns/b"].key = "ns/b";
  ObjectIndex objects;
  objects[object_index_key("Pod", "ns/a-0")] = object("p0", now - std::chrono::seconds(30));
  objects[object_index_key("Pod", "ns/a-1")] = object("p1", now - std::chrono::seconds(20));
  objects[object_index_key("PodGroup", "ns/a")] = object("g-a", now - std::chrono::seconds(40));
  Decisions d;
  d.queues = {QueueShare{"q1", 2, {{"cpu", 8000}, {"memory", 1024 * 1000}}, {{"cpu", 4000}}},
              QueueShare{"q2", 1, {{"cpu", 8000}}, {}}};
  d.evictions = {{"ns/v", "n1", "reclaim: queue q2 is above its deserved share; queue q1 ..."}};
  d.unschedulable = {{"ns/b-0", "gang needs 2 pods"}};
  d.unschedulable_reasons = {{"ns/b-0", "NotEnoughPods"}};
  ApplyReport report;
  report.bound = {{"ns/a-0", "n1"}, {"ns/a-1", "n2"}};
  report.evicted = {"ns/v"};
  m.observe_cycle(snap, d, report, objects, 0.02, 3, now);
  std::string t = m.text();
  EXPECT_TRUE(has(t, "weft_scheduler_build_info{version=\"9.9.9\"} 1")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_pods_bound_total 2")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_e2e_scheduling_duration_seconds_count 2")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_e2e_scheduling_duration_seconds_sum 50")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_gang_wait_seconds_count 1")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_gang_wait_seconds_sum 40")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_reclaims_total 1")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_preemptions_total 0")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_pending_pods 3")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_unschedulable_pods{reason=\"NotEnoughPods\"} 1")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_queue_share{queue=\"q1\",resource=\"cpu\"} 0.5")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_queue_deserved{queue=\"q1\",resource=\"memory\"} 1024")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_queue_allocated{queue=\"q2\",resource=\"cpu\"} 0")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_queue_weight{queue=\"q1\"} 2")) << t;

  // Next cycle: more of gang a bound (its wait is not observed again), q2 and the
  // unschedulable reason are gone, so are their series.
  snap.pods.push_back(pod("ns/a-2", "ns/a"));
  Decisions d2;
  d2.queues = {QueueShare{"q1", 2, {{"cpu", 8000}}, {{"cpu", 6000}}}};
  ApplyReport r2;
  r2.bound = {{"ns/a-2", "n3"}};
  m.observe_cycle(snap, d2, r2, objects, 0.01, 2, now);
  t = m.text();
  EXPECT_TRUE(has(t, "weft_scheduler_gang_wait_seconds_count 1")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_pods_bound_total 3")) << t;
  EXPECT_FALSE(has_series(t, "weft_scheduler_queue_share{queue=\"q2\",resource=\"cpu\"}")) << t;
  EXPECT_FALSE(has_series(t, "weft_scheduler_queue_deserved{queue=\"q1\",resource=\"memory\"}")) << t;
  EXPECT_FALSE(has_series(t, "weft_scheduler_queue_weight{queue=\"q2\"}")) << t;
  EXPECT_FALSE(has_series(t, "weft_scheduler_unschedulable_pods{reason=\"NotEnoughPods\"}")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_queue_share{queue=\"q1\",resource=\"cpu\"} 0.75")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_cycles_total 2")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_pending_pods 2")) << t;
}

TEST(RunMetrics, HealthFailsOnlyForAWedgedLeader) {
  RunMetrics m("1");
  const auto stall = std::chrono::milliseconds(50);
  EXPECT_FALSE(m.ready());
  EXPECT_TRUE(m.healthy(stall));   // starting: not synced yet
  m.set_synced(true);
  EXPECT_TRUE(m.ready());
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  EXPECT_TRUE(m.healthy(stall));   // a standby never schedules: healthy
  m.set_leader(true);
  EXPECT_TRUE(m.healthy(stall));   // just took over
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  EXPECT_FALSE(m.healthy(stall));  // leading, synced, no cycle for longer than the stall
  m.observe_cycle(Snapshot{}, Decisions{}, ApplyReport{}, ObjectIndex{}, 0.001, 0, system_clock::now());
  EXPECT_TRUE(m.healthy(stall));
  EXPECT_NE(m.text().find("weft_scheduler_leader 1"), std::string::npos);
  m.set_leader(false);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  EXPECT_TRUE(m.healthy(stall));
}

// rail-health's reports count once the API took the gang's bindings.
TEST(RunMetrics, DegradedRailNodesCountWhenTheGangIsBound) {
  RunMetrics m("1");
  Snapshot snap;
  snap.pods = {pod("ns/a-0", "ns/a"), pod("ns/b-0", "ns/b")};
  Decisions d;
  d.degraded_rails = {{"ns/a", "n1", false}, {"ns/a", "n4", true}, {"ns/b", "n1", false}};
  ApplyReport report;
  report.bound = {{"ns/a-0", "n4"}};   // b's binding was refused: its report does not count
  m.observe_cycle(snap, d, report, ObjectIndex{}, 0.01, 2, system_clock::now());
  const std::string t = m.text();
  EXPECT_TRUE(has(t, "weft_scheduler_degraded_rail_nodes_total{decision=\"avoided\"} 1")) << t;
  EXPECT_TRUE(has(t, "weft_scheduler_degraded_rail_nodes_total{decision=\"used\"} 1")) << t;
}

}  // namespace
}  // namespace weft::scheduler
