// PodLifeTime: cases of the Kubernetes descheduler's pod_lifetime_test.go as facts
// (maxPodLifeTimeSeconds 600; "older" pods were created well before, "newer" ones just now).
#include <gtest/gtest.h>

#include "descheduler/core/plugins/PodLifeTime/pod_lifetime.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace plt = plugins::pod_lifetime;

const TimePoint kOlder = t0() - std::chrono::hours(24 * 30);
const TimePoint kNewer = t0() - std::chrono::seconds(5);

json aged(const std::string& name, TimePoint created, const std::string& phase = "Running") {
  return created_at(with_status(pod(name, "node1"), phase), created);
}

plt::Args max_age(std::vector<std::string> states = {}) {
  plt::Args a;
  a.max_pod_lifetime_seconds = 600;
  a.states = std::move(states);
  return a;
}

std::vector<std::string> run(const plt::Args& a, std::vector<json> pods, std::function<void(RecordingEvictor&)> setup = {}) {
  pods.insert(pods.begin(), node("node1"));
  Cluster c = build(pods);
  TestHandle h(c, t0());
  if (setup) setup(h.recorder());
  plt::Plugin plugin(a);
  return run_plugin(plugin, h);
}

using Keys = std::vector<std::string>;

// Upstream's terminating row also sets a label selector its pods miss; here without it, so
// the DefaultEvictor alone keeps the terminating pods (and lets the other old pod go).
TEST(PodLifeTime, TerminatingPodsStay) {
  json p14 = aged("p14", kOlder), p15 = aged("p15", kOlder);
  for (json* p : {&p14, &p15}) (*p)["metadata"]["deletionTimestamp"] = "2026-11-01T00:00:00Z";
  Cluster c = build({node("node1"), p14, p15, aged("p16", kOlder)});
  EvictorHandle h(c, {}, {});
  plt::Plugin plugin(max_age());
  EXPECT_EQ(run_plugin(plugin, h), Keys{"default/p16"});
}

TEST(PodLifeTime, OldestFirstUnderLimits) {
  // Without limits both old pods go, the oldest first; a limit keeps the oldest only.
  json p2 = aged("p2", kOlder), p9 = aged("p9", kOlder + std::chrono::hours(1), "Pending");
  EXPECT_EQ(run(max_age(), {aged("p1", kNewer), p9, p2}), (Keys{"default/p2", "default/p9"}));
  EXPECT_EQ(run(max_age(), {aged("p1", kNewer), p9, p2}, [](RecordingEvictor& e) { e.max_total = 1; }),
            Keys{"default/p2"});
  EXPECT_EQ(run(max_age(), {aged("p1", kNewer), p9, p2}, [](RecordingEvictor& e) { e.max_per_node = 1; }),
            Keys{"default/p2"});
}

TEST(PodLifeTime, ConditionsExitCodesAndOwnerKinds) {
  plt::Args completed;
  completed.states = {"Succeeded"};
  completed.conditions = {{"", "True", "PodCompleted", 14400}};
  json done = aged("done", kOlder, "Succeeded");
  done["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "PodCompleted"},
                                               {"lastTransitionTime", format_rfc3339(t0() - std::chrono::hours(5))}}});
  json recent = aged("recent", kOlder, "Succeeded");
  recent["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "PodCompleted"},
                                                 {"lastTransitionTime", format_rfc3339(t0() - std::chrono::hours(1))}}});
  EXPECT_EQ(run(completed, {done, recent}), Keys{"default/done"});

  plt::Args codes;
  codes.states = {"Failed"};
  codes.exit_codes = {1};
  codes.exclude_owner_kinds = {"Job"};
  json failed1 = created_at(with_status(pod("f1", "node1"), "Failed", {terminated("Error", 1)}), kOlder);
  json failed2 = created_at(with_status(pod("f2", "node1"), "Failed", {terminated("Error", 2)}), kOlder);
  json job = created_at(with_status(pod("f3", "node1", {.owner_kind = "Job"}), "Failed", {terminated("Error", 1)}), kOlder);
  EXPECT_EQ(run(codes, {failed1, failed2, job}), Keys{"default/f1"});

  plt::Args only_jobs;
  only_jobs.states = {"Failed"};
  only_jobs.include_owner_kinds = {"Job"};
  EXPECT_EQ(run(only_jobs, {failed1, job}), Keys{"default/f3"});
}

// Upstream's pod_lifetime_test.go row by row (every table but TestValidation, which the
// Validation test below covers) with upstream's own objects: pods of 100m/0 on n1 (1m/1 on
// node1 for the newer tables, 0/0 for the two "stuck" pods), a ReplicaSet's unless the row
// builds a bare one, with no phase and no creation time (Go's zero time: as old as can be)
// unless the row sets them; nodes of 2000m, 3000 bytes and 10 pods; through the
// DefaultEvictor with the row's ignorePvcPods and limits.
namespace upstream {

using Apply = std::function<void(json&)>;

const TimePoint kOlderCreation = parse_rfc3339("2009-11-10T23:00:00Z").value();
const TimePoint kNewerCreation = t0();   // upstream: time.Now() when the test starts
const TimePoint kOldTransition = t0() - std::chrono::hours(2);
const TimePoint kNewTransition = t0() - std::chrono::minutes(1);

json test_pod(const std::string& name, const std::string& node_name, const char* cpu, const char* memory, bool rs_owned,
              std::optional<TimePoint> created, const Apply& apply = {}) {
  json p = pod(name, node_name, {.cpu = cpu, .memory = memory, .owner_kind = rs_owned ? "ReplicaSet" : ""});
  p["status"].erase("phase");
  if (created) p = created_at(p, *created);
  if (apply) apply(p);
  return p;
}
json on_n1(const std::string& name, TimePoint created, const Apply& apply = {}) {
  return test_pod(name, "n1", "100m", "0", true, created, apply);
}
json pending_on_n1(const std::string& name, TimePoint created, const Apply& apply = {}) {
  return on_n1(name, created, [&](json& p) {
    p["status"]["phase"] = "Pending";
    if (apply) apply(p);
  });
}
json on_node1(const std::string& name, const Apply& apply) { return test_pod(name, "node1", "1m", "1", true, std::nullopt, apply); }

Apply phase(const char* value) { return [value](json& p) { p["status"]["phase"] = value; }; }
Apply reason(const char* value) { return [value](json& p) { p["status"]["reason"] = value; }; }
Apply then(Apply a, Apply b) { return [a, b](json& p) { a(p); b(p); }; }
Apply statuses(const char* list, json entry) {
  return [list, entry](json& p) { p["status"][list] = json::array({entry}); };
}
Apply waiting_in(const char* list, const char* why) { return statuses(list, waiting(why)); }
Apply owned_by_job() {
  return [](json& p) { p["metadata"]["ownerReferences"] = json::array({{{"kind", "Job"}, {"name", "job1"}, {"apiVersion", "batch/v1"}}}); };
}
Apply conditions(json list) { return [list](json& p) { p["status"]["conditions"] = list; }; }
json cond(const char* type, const char* status, const char* why, std::optional<TimePoint> transition) {
  json c = {{"type", type}};
  if (*status) c["status"] = status;
  if (*why) c["reason"] = why;
  if (transition) c["lastTransitionTime"] = format_rfc3339(*transition);
  return c;
}

plt::Args lifetime(std::vector<std::string> states = {}) { return plt::Args{.max_pod_lifetime_seconds = 600, .states = std::move(states)}; }
plt::Args with(plt::Args a, const std::function<void(plt::Args&)>& edit) {
  edit(a);
  return a;
}

struct Row {
  std::string description;
  plt::Args args;
  std::vector<json> pods;
  size_t expected;
  std::vector<std::string> expected_pods = {};   // upstream's expectedEvictedPods, when the row lists them
  framework::EvictorOptions options = {};
  bool ignore_pvc_pods = false;
  const char* node_name = "n1";
};

void check(const Row& row) {
  SCOPED_TRACE(row.description);
  std::vector<json> objs = {node(row.node_name, {}, "2000m", "3000", "10")};
  objs.insert(objs.end(), row.pods.begin(), row.pods.end());
  Cluster c = build(objs);
  EvictorArgs evictor_args;
  evictor_args.ignore_pvc_pods = row.ignore_pvc_pods;
  EvictorHandle h(c, evictor_args, row.options);
  plt::Plugin plugin(row.args);
  std::vector<std::string> evicted = run_plugin(plugin, h);
  EXPECT_EQ(evicted.size(), row.expected);
  if (row.expected_pods.empty()) return;
  std::vector<std::string> expected;
  for (const auto& name : row.expected_pods) expected.push_back("default/" + name);
  std::sort(evicted.begin(), evicted.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(evicted, expected);
}

}  // namespace upstream

TEST(PodLifeTime, UpstreamRowsThroughTheEvictor) {
  using namespace upstream;
  const TimePoint older = kOlderCreation, newer = kNewerCreation;
  const Apply terminating = [](json& p) { p["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z"; };
  const Apply pvc = [](json& p) {
    p["spec"]["volumes"] = json::array({{{"name", "pvc"}, {"persistentVolumeClaim", {{"claimName", "foo"}}}}});
  };
  const Apply labels_bar = [](json& p) { p["metadata"]["labels"] = {{"foo", "bar"}}; };
  const Apply labels_bar1 = [](json& p) { p["metadata"]["labels"] = {{"foo", "bar1"}}; };
  const auto foo_bar = [](plt::Args& a) { a.filter.labels = kube::LabelSelector::parse("foo=bar").value(); };
  const auto stuck = [&](const char* name, const char* why) {
    return test_pod(name, "n1", "0m", "0", true, older, waiting_in("containerStatuses", why));
  };
  const auto limits = [](std::optional<int> per_node, std::optional<int> per_namespace, std::optional<int> total) {
    return with_limits(false, per_node, per_namespace, total);
  };
  const auto failed_job = [](const char* name) { return on_node1(name, then(phase("Failed"), owned_by_job())); };
  const json completed_conditions = json::array({cond("Initialized", "True", "PodCompleted", kOldTransition),
                                                 cond("Ready", "False", "PodCompleted", kOldTransition)});
  const plt::ConditionFilter completed_5m{.status = "True", .reason = "PodCompleted", .min_time_since_last_transition_seconds = 300};

  const std::vector<Row> rows = {
      // TestPodLifeTime
      {"No pod should be evicted since pod terminating", with(lifetime(), foo_bar),
       {on_n1("p14", older, terminating), on_n1("p15", older, terminating)}, 0},
      // TestPodLifeTime_EvictorConfiguration
      {"Does not evict pvc pods with ignorePvcPods set to true", lifetime(), {on_n1("p11", older, pvc)}, 0, {}, {}, true},
      {"Evicts pvc pods with ignorePvcPods set to false (or unset)", lifetime(), {on_n1("p11", older, pvc)}, 1},
      // TestPodLifeTime_GenericFiltering
      {"1 pod matching label selector should be evicted", with(lifetime(), foo_bar),
       {on_n1("p12", older, labels_bar), on_n1("p13", older, labels_bar1)}, 1, {"p12"}},
      // TestPodLifeTime_EvictionLimits
      {"2 Oldest pods should be evicted when maxPodsToEvictPerNode and maxPodsToEvictPerNamespace are not set", lifetime(),
       {on_n1("p1", newer), on_n1("p2", older), pending_on_n1("p9", older)}, 2, {"p2", "p9"}},
      {"1 Oldest pod should be evicted when maxPodsToEvictPerNamespace is set to 1", lifetime(), {on_n1("p1", newer), on_n1("p2", older)},
       1, {"p2"}, limits(std::nullopt, 1, std::nullopt)},
      {"1 Oldest pod should be evicted when maxPodsToEvictTotal is set to 1", lifetime(), {on_n1("p1", newer), on_n1("p2", older)}, 1,
       {"p2"}, limits(std::nullopt, 2, 1)},
      {"1 Oldest pod should be evicted when maxPodsToEvictPerNode is set to 1", lifetime(), {on_n1("p1", newer), on_n1("p2", older)}, 1,
       {"p2"}, limits(1, std::nullopt, std::nullopt)},
      // TestPodLifeTime_ContainerWaitingReasons
      {"Two pods, one with ContainerCreating state. 1 should be evicted.", lifetime({"ContainerCreating"}),
       {pending_on_n1("p9", older), stuck("container-creating-stuck", "ContainerCreating")}, 1},
      {"Two pods, one with PodInitializing state. 1 should be evicted.", lifetime({"PodInitializing"}),
       {pending_on_n1("p9", older), stuck("pod-initializing-stuck", "PodInitializing")}, 1},
      {"1 pod with container status ImagePullBackOff should be evicted", lifetime({"ImagePullBackOff"}),
       {pending_on_n1("p9", older, waiting_in("containerStatuses", "ImagePullBackOff"))}, 1},
      {"1 pod with container status CrashLoopBackOff should be evicted", lifetime({"CrashLoopBackOff"}),
       {pending_on_n1("p9", older, waiting_in("containerStatuses", "CrashLoopBackOff"))}, 1},
      {"1 pod with container status CreateContainerConfigError should be evicted", lifetime({"CreateContainerConfigError"}),
       {pending_on_n1("p9", older, waiting_in("containerStatuses", "CreateContainerConfigError"))}, 1},
      {"1 pod with container status ErrImagePull should be evicted", lifetime({"ErrImagePull"}),
       {pending_on_n1("p9", older, waiting_in("containerStatuses", "ErrImagePull"))}, 1},
      {"1 pod with init container status CreateContainerError should not be evicted without includingInitContainers",
       lifetime({"CreateContainerError"}), {pending_on_n1("p9", older, waiting_in("initContainerStatuses", "CreateContainerError"))}, 0},
      {"1 pod with init container status CreateContainerError should be evicted with includingInitContainers",
       with(lifetime({"CreateContainerError"}), [](plt::Args& a) { a.including_init_containers = true; }),
       {pending_on_n1("p9", older, waiting_in("initContainerStatuses", "CreateContainerError"))}, 1},
      {"1 pod with ephemeral container status CreateContainerError should not be evicted without includingEphemeralContainers",
       lifetime({"CreateContainerError"}),
       {pending_on_n1("p9", older, waiting_in("ephemeralContainerStatuses", "CreateContainerError"))}, 0},
      {"1 pod with ephemeral container status CreateContainerError should be evicted with includingEphemeralContainers",
       with(lifetime({"CreateContainerError"}), [](plt::Args& a) { a.including_ephemeral_containers = true; }),
       {pending_on_n1("p9", older, waiting_in("ephemeralContainerStatuses", "CreateContainerError"))}, 1},
      {"1 pod with container status CreateContainerError should be evicted", lifetime({"CreateContainerError"}),
       {pending_on_n1("p9", older, waiting_in("containerStatuses", "CreateContainerError"))}, 1},
      {"1 pod with container status InvalidImageName should be evicted", lifetime({"InvalidImageName"}),
       {pending_on_n1("p9", older, waiting_in("containerStatuses", "InvalidImageName"))}, 1},
      {"1 pod with ImagePullBackOff status should be ignored when States filter is ContainerCreating", lifetime({"ContainerCreating"}),
       {pending_on_n1("p9", older, waiting_in("containerStatuses", "ImagePullBackOff"))}, 0},
      // TestPodLifeTime_PodStatusReasons
      {"1 pod with pod status reason NodeLost should be evicted", lifetime({"NodeLost"}), {pending_on_n1("p9", older, reason("NodeLost"))}, 1},
      {"1 pod with pod status reason NodeAffinity should be evicted", lifetime({"NodeAffinity"}),
       {pending_on_n1("p9", older, reason("NodeAffinity"))}, 1},
      {"1 pod with pod status reason Shutdown should be evicted", lifetime({"Shutdown"}), {pending_on_n1("p9", older, reason("Shutdown"))}, 1},
      {"1 pod with pod status reason UnexpectedAdmissionError should be evicted", lifetime({"UnexpectedAdmissionError"}),
       {pending_on_n1("p9", older, reason("UnexpectedAdmissionError"))}, 1},
      // TestPodLifeTime_AgeThreshold
      {"Two pods in the default namespace, 1 is new and 1 very is old. 1 should be evicted.", lifetime(),
       {on_n1("p1", newer), on_n1("p2", older)}, 1, {"p2"}},
      {"Two pods in the default namespace, 2 are new and 0 are old. 0 should be evicted.", lifetime(),
       {on_n1("p3", newer), on_n1("p4", newer)}, 0},
      {"Two pods in the default namespace, 1 created 605 seconds ago. 1 should be evicted.", lifetime(),
       {on_n1("p5", newer), on_n1("p6", t0() - std::chrono::seconds(605))}, 1, {"p6"}},
      {"Two pods in the default namespace, 1 created 595 seconds ago. 0 should be evicted.", lifetime(),
       {test_pod("p7", "n1", "100m", "0", false, newer), test_pod("p8", "n1", "100m", "0", false, t0() - std::chrono::seconds(595))}, 0},
      // TestPodLifeTime_PodPhaseStates
      {"Two old pods with different states. 1 should be evicted.", lifetime({"Pending"}),
       {pending_on_n1("p9", older), on_n1("p10", older, phase("Running"))}, 1, {"p9"}},
      {"1 pod with pod status phase v1.PodSucceeded should be evicted", lifetime({"Succeeded"}), {on_n1("p16", older, phase("Succeeded"))}, 1},
      {"1 pod with pod status phase v1.PodFailed should be evicted", lifetime({"Failed"}), {on_n1("p16", older, phase("Failed"))}, 1},
      {"1 pod with pod status phase v1.PodUnknown should be evicted", lifetime({"Unknown"}), {on_n1("p16", older, phase("Unknown"))}, 1},
      // TestStatesWithTerminatedReasons
      {"evict pod with matching terminated reason via states", plt::Args{.states = {"NodeAffinity"}},
       {on_node1("p1", then(phase("Failed"), statuses("containerStatuses", terminated("NodeAffinity", 0))))}, 1, {}, {}, false, "node1"},
      {"evict pod with matching pod status reason via states", plt::Args{.states = {"Shutdown"}},
       {on_node1("p1", then(phase("Failed"), reason("Shutdown")))}, 1, {}, {}, false, "node1"},
      {"states matches terminated reason on init container",
       plt::Args{.states = {"CreateContainerConfigError"}, .including_init_containers = true},
       {on_node1("p1", statuses("initContainerStatuses", terminated("CreateContainerConfigError", 0)))}, 1, {}, {}, false, "node1"},
      {"states does not match terminated reason on init container without flag", plt::Args{.states = {"CreateContainerConfigError"}},
       {on_node1("p1", statuses("initContainerStatuses", terminated("CreateContainerConfigError", 0)))}, 0, {}, {}, false, "node1"},
      // TestConditionFiltering
      {"evict pod with matching condition reason", plt::Args{.conditions = {{.status = "True", .reason = "PodCompleted"}}},
       {on_node1("p1", conditions(json::array({cond("Initialized", "True", "PodCompleted", kOldTransition)}))),
        on_node1("p2", conditions(json::array({cond("Initialized", "True", "OtherReason", kOldTransition)})))},
       1, {"p1"}, {}, false, "node1"},
      {"evict pod matching condition type only", plt::Args{.conditions = {{.type = "Ready"}}},
       {on_node1("p1", conditions(json::array({cond("Ready", "False", "", kOldTransition)})))}, 1, {}, {}, false, "node1"},
      {"no matching conditions, 0 evictions", plt::Args{.conditions = {{.reason = "PodCompleted"}}},
       {on_node1("p1", conditions(json::array({cond("Ready", "True", "SomethingElse", std::nullopt)})))}, 0, {}, {}, false, "node1"},
      // TestTransitionTimeFiltering
      {"evict pod with old transition time", plt::Args{.states = {"Succeeded"}, .conditions = {completed_5m}},
       {on_node1("p1", then(phase("Succeeded"), conditions(completed_conditions)))}, 1, {"p1"}, {}, false, "node1"},
      {"do not evict pod with recent transition time",
       plt::Args{.states = {"Succeeded"}, .conditions = {{.min_time_since_last_transition_seconds = 14400}}},
       {on_node1("p1", then(phase("Succeeded"), conditions(json::array({cond("Ready", "False", "", kNewTransition)}))))}, 0, {}, {},
       false, "node1"},
      {"transition time scoped to matching conditions only",
       plt::Args{.conditions = {{.reason = "PodCompleted", .min_time_since_last_transition_seconds = 300}}},
       {on_node1("p1", conditions(json::array({cond("Initialized", "", "PodCompleted", kOldTransition),
                                               cond("Ready", "", "OtherReason", kNewTransition)})))},
       1, {"p1"}, {}, false, "node1"},
      {"no conditions on pod, transition time filter returns false",
       plt::Args{.states = {"Running"}, .conditions = {{.min_time_since_last_transition_seconds = 300}}},
       {on_node1("p1", phase("Running"))}, 0, {}, {}, false, "node1"},
      // TestOwnerKindsFiltering
      {"exclude Job owner kind: Job-owned pod not evicted", plt::Args{.exclude_owner_kinds = {"Job"}, .states = {"Failed"}},
       {failed_job("p1")}, 0, {}, {}, false, "node1"},
      {"exclude Job owner kind: non-Job pod still evicted", plt::Args{.exclude_owner_kinds = {"Job"}, .states = {"Failed"}},
       {failed_job("p1"), on_node1("p2", phase("Failed"))}, 1, {"p2"}, {}, false, "node1"},
      {"include only Job owner kind", plt::Args{.include_owner_kinds = {"Job"}, .states = {"Failed"}},
       {failed_job("p1"), on_node1("p2", phase("Failed"))}, 1, {"p1"}, {}, false, "node1"},
      // TestStatesWithEphemeralContainers
      {"states matches terminated reason on ephemeral container", plt::Args{.states = {"OOMKilled"}, .including_ephemeral_containers = true},
       {on_node1("p1", statuses("ephemeralContainerStatuses", terminated("OOMKilled", 0)))}, 1, {}, {}, false, "node1"},
      {"states does not match ephemeral container without flag", plt::Args{.states = {"OOMKilled"}},
       {on_node1("p1", statuses("ephemeralContainerStatuses", terminated("OOMKilled", 0)))}, 0, {}, {}, false, "node1"},
      // TestExitCodesFiltering
      {"evict pod with matching exit code", plt::Args{.states = {"Failed"}, .exit_codes = {1}},
       {on_node1("p1", then(phase("Failed"), statuses("containerStatuses", terminated("", 1))))}, 1, {}, {}, false, "node1"},
      {"exit code not matched, 0 evictions", plt::Args{.states = {"Failed"}, .exit_codes = {2}},
       {on_node1("p1", then(phase("Failed"), statuses("containerStatuses", terminated("", 1))))}, 0, {}, {}, false, "node1"},
      // TestCombinedFilters
      {"user scenario: Succeeded + PodCompleted condition + transition time threshold",
       plt::Args{.states = {"Succeeded"}, .conditions = {completed_5m}},
       {on_node1("stale-completed", then(phase("Succeeded"), conditions(completed_conditions))),
        on_node1("recent-completed",
                 then(phase("Succeeded"), conditions(json::array({cond("Initialized", "True", "PodCompleted", kNewTransition)})))),
        on_node1("running-pod", phase("Running"))},
       1, {"stale-completed"}, {}, false, "node1"},
      {"failed pod removal compat: Failed + min age + exclude Job",
       plt::Args{.exclude_owner_kinds = {"Job"}, .max_pod_lifetime_seconds = 0, .states = {"Failed"}},
       {on_node1("failed-rs", then(phase("Failed"), statuses("containerStatuses", terminated("Error", 0)))), failed_job("failed-job")},
       1, {"failed-rs"}, {}, false, "node1"},
  };
  EXPECT_EQ(rows.size(), 53u);   // upstream's 66 rows less TestValidation's 13
  for (const Row& row : rows) check(row);
}

// nodeFit is asked when the pods are listed (upstream wraps PreEvictionFilter into the
// listing): "a" fits on "large" and goes; "b" fits on "small" only once "a" has left, so
// it stays, as upstream.
TEST(PodLifeTime, NodeFitAskedWhenListed) {
  Cluster c = listing_cluster([](json p) {
    const auto age = std::chrono::hours(p["metadata"]["name"] == "a" ? 0 : 1);
    return created_at(std::move(p), kOlder + age);
  });
  EvictorHandle h(c, {}, with_node_fit(true));
  plt::Plugin plugin(max_age());
  EXPECT_EQ(run_plugin(plugin, h), Keys{"default/a"});
}

TEST(PodLifeTime, Validation) {
  auto parse = [](const char* text) { return plt::parse_args(ctx(), json::parse(text), "args"); };
  EXPECT_FALSE(plt::parse_args(ctx(), nullptr, "args").ok());   // no criterion at all
  auto none = parse("{}");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("at least one of maxPodLifeTimeSeconds"), std::string::npos) << none.message();
  auto state = parse(R"({"states": ["Running", "Sleeping"]})");
  ASSERT_FALSE(state.ok());
  EXPECT_NE(state.message().find("args.states[1]"), std::string::npos) << state.message();
  EXPECT_FALSE(parse(R"({"maxPodLifeTimeSeconds": 1, "ownerKinds": {"include": ["Job"], "exclude": ["X"]}})").ok());
  EXPECT_FALSE(parse(R"({"conditions": [{}]})").ok());
  EXPECT_FALSE(parse(R"({"maxPodLifeTimeSeconds": -5})").ok());
  // validation_test.go: each criterion alone, and together, is valid.
  for (const char* valid : {R"({"states": ["Running"]})", R"({"conditions": [{"reason": "PodCompleted"}]})",
                            R"({"maxPodLifeTimeSeconds": 600})", R"({"states": ["Running"], "maxPodLifeTimeSeconds": 600})",
                            R"({"states": ["Succeeded"], "conditions": [{"reason": "PodCompleted"}]})", R"({"exitCodes": [1]})",
                            R"({"conditions": [{"reason": "PodCompleted", "minTimeSinceLastTransitionSeconds": 300}]})",
                            R"({"conditions": [{"minTimeSinceLastTransitionSeconds": 300}]})"})
    EXPECT_TRUE(parse(valid).ok()) << valid << ": " << parse(valid).message();
  EXPECT_FALSE(parse(R"({"states": ["Running"], "namespaces": {"include": ["a"], "exclude": ["b"]}})").ok());
  EXPECT_FALSE(parse(R"({"states": ["Running"], "ownerKinds": {"include": ["Job"], "exclude": ["ReplicaSet"]}})").ok());
  EXPECT_FALSE(parse(R"({"states": ["NotAState"]})").ok());
  auto ok = parse(R"({"maxPodLifeTimeSeconds": 86400, "states": ["Running"], "namespaces": {"include": ["default"]}})");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->max_pod_lifetime_seconds, 86400);
}

}  // namespace
}  // namespace weft::descheduler::test
