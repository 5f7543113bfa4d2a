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

TEST(PodLifeTime, AgeThreshold) {
  EXPECT_EQ(run(max_age(), {aged("p1", kNewer), aged("p2", kOlder)}), Keys{"default/p2"});
  EXPECT_EQ(run(max_age(), {aged("p3", kNewer), aged("p4", kNewer)}), Keys{});
  EXPECT_EQ(run(max_age(), {aged("p5", kNewer), aged("p6", t0() - std::chrono::seconds(605))}), Keys{"default/p6"});
  EXPECT_EQ(run(max_age(), {aged("p7", kNewer), aged("p8", t0() - std::chrono::seconds(595))}), Keys{});
}

TEST(PodLifeTime, TerminatingPodsStay) {
  json p14 = aged("p14", kOlder), p15 = aged("p15", kOlder);
  for (json* p : {&p14, &p15}) (*p)["metadata"]["deletionTimestamp"] = "2026-11-01T00:00:00Z";
  EXPECT_EQ(run(max_age(), {p14, p15}), Keys{});
}

TEST(PodLifeTime, LabelSelector) {
  plt::Args a = max_age();
  a.filter.labels = kube::LabelSelector::parse("foo=bar").value();
  json p12 = aged("p12", kOlder), p13 = aged("p13", kOlder);
  p12["metadata"]["labels"] = {{"foo", "bar"}};
  p13["metadata"]["labels"] = {{"foo", "bar1"}};
  EXPECT_EQ(run(a, {p12, p13}), Keys{"default/p12"});
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

TEST(PodLifeTime, States) {
  auto with = [](const std::string& name, json containers, json init = json::array(), const std::string& reason = "") {
    return created_at(with_status(pod(name, "node1"), "Running", std::move(containers), std::move(init), reason), kOlder);
  };
  EXPECT_EQ(run(max_age({"ContainerCreating"}), {with("p1", {waiting("ContainerCreating")}), aged("p2", kOlder)}),
            Keys{"default/p1"});
  for (const char* reason : {"PodInitializing", "ImagePullBackOff", "CrashLoopBackOff", "CreateContainerConfigError",
                             "ErrImagePull", "CreateContainerError", "InvalidImageName"})
    EXPECT_EQ(run(max_age({reason}), {with("p", {waiting(reason)})}).size(), 1u) << reason;
  EXPECT_EQ(run(max_age({"ContainerCreating"}), {with("p", {waiting("ImagePullBackOff")})}), Keys{});
  // Init containers count only with includingInitContainers, ephemeral ones only with theirs.
  EXPECT_EQ(run(max_age({"CreateContainerError"}), {with("p", json::array(), {waiting("CreateContainerError")})}), Keys{});
  plt::Args init = max_age({"CreateContainerError"});
  init.including_init_containers = true;
  EXPECT_EQ(run(init, {with("p", json::array(), {waiting("CreateContainerError")})}).size(), 1u);
  json eph = aged("p", kOlder);
  eph["status"]["ephemeralContainerStatuses"] = json::array({waiting("CreateContainerError")});
  EXPECT_EQ(run(max_age({"CreateContainerError"}), {eph}), Keys{});
  plt::Args with_eph = max_age({"CreateContainerError"});
  with_eph.including_ephemeral_containers = true;
  EXPECT_EQ(run(with_eph, {eph}).size(), 1u);
  // Pod status reasons and phases.
  for (const char* reason : {"NodeLost", "NodeAffinity", "Shutdown", "UnexpectedAdmissionError"})
    EXPECT_EQ(run(max_age({reason}), {with("p", json::array(), json::array(), reason)}).size(), 1u) << reason;
  EXPECT_EQ(run(max_age({"Pending"}), {aged("p9", kOlder, "Pending"), aged("p10", kOlder)}), Keys{"default/p9"});
  for (const char* phase : {"Succeeded", "Failed", "Unknown"})
    EXPECT_EQ(run(max_age({phase}), {aged("p", kOlder, phase)}).size(), 1u) << phase;
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

// Upstream's buildPod: a ReplicaSet's pod on node1 with no creationTimestamp (as old as
// can be), `edit` applied.
json bare_status_pod(const std::string& name, const std::function<void(json&)>& edit) {
  json p = pod(name, "node1");
  p["metadata"].erase("creationTimestamp");
  edit(p);
  return p;
}

json condition(const std::string& type, const std::string& status, const std::string& reason, TimePoint transition) {
  json c = {{"type", type}, {"lastTransitionTime", format_rfc3339(transition)}};
  if (!status.empty()) c["status"] = status;
  if (!reason.empty()) c["reason"] = reason;
  return c;
}

std::vector<std::string> run_json(const char* args, std::vector<json> pods) {
  auto a = plt::parse_args(ctx(), json::parse(args), "args");
  EXPECT_TRUE(a.ok()) << a.message();
  return a.ok() ? run(*a, std::move(pods)) : Keys{};
}

const TimePoint kOldTransition = t0() - std::chrono::hours(2);
const TimePoint kNewTransition = t0() - std::chrono::minutes(1);

json terminated_in(const char* list, const std::string& reason, int exit_code = 0) {
  return bare_status_pod("p1", [&](json& p) { p["status"][list] = json::array({terminated(reason, exit_code)}); });
}

TEST(PodLifeTime, StatesWithTerminatedReasons) {
  json node_affinity = terminated_in("containerStatuses", "NodeAffinity");
  node_affinity["status"]["phase"] = "Failed";
  EXPECT_EQ(run_json(R"({"states": ["NodeAffinity"]})", {node_affinity}).size(), 1u);
  json shutdown = bare_status_pod("p1", [](json& p) { p["status"] = {{"phase", "Failed"}, {"reason", "Shutdown"}}; });
  EXPECT_EQ(run_json(R"({"states": ["Shutdown"]})", {shutdown}).size(), 1u);
  const json init = terminated_in("initContainerStatuses", "CreateContainerConfigError");
  EXPECT_EQ(run_json(R"({"states": ["CreateContainerConfigError"], "includingInitContainers": true})", {init}).size(), 1u);
  EXPECT_EQ(run_json(R"({"states": ["CreateContainerConfigError"]})", {init}).size(), 0u);
  // Ephemeral containers' terminated reasons, only with includingEphemeralContainers.
  const json eph = terminated_in("ephemeralContainerStatuses", "OOMKilled");
  EXPECT_EQ(run_json(R"({"states": ["OOMKilled"], "includingEphemeralContainers": true})", {eph}).size(), 1u);
  EXPECT_EQ(run_json(R"({"states": ["OOMKilled"]})", {eph}).size(), 0u);
}

TEST(PodLifeTime, ConditionFiltering) {
  auto with = [](const std::string& name, json conditions) {
    return bare_status_pod(name, [&](json& p) { p["status"]["conditions"] = conditions; });
  };
  EXPECT_EQ(run_json(R"({"conditions": [{"reason": "PodCompleted", "status": "True"}]})",
                     {with("p1", json::array({condition("Initialized", "True", "PodCompleted", kOldTransition)})),
                      with("p2", json::array({condition("Initialized", "True", "OtherReason", kOldTransition)}))}),
            Keys{"default/p1"});
  EXPECT_EQ(run_json(R"({"conditions": [{"type": "Ready"}]})",
                     {with("p1", json::array({condition("Ready", "False", "", kOldTransition)}))}).size(),
            1u);
  EXPECT_EQ(run_json(R"({"conditions": [{"reason": "PodCompleted"}]})",
                     {with("p1", json::array({condition("Ready", "True", "SomethingElse", kOldTransition)}))}).size(),
            0u);
}

TEST(PodLifeTime, TransitionTimeFiltering) {
  auto with = [](const std::string& phase, json conditions) {
    return bare_status_pod("p1", [&](json& p) {
      if (!phase.empty()) p["status"]["phase"] = phase;
      if (!conditions.is_null()) p["status"]["conditions"] = conditions;
    });
  };
  EXPECT_EQ(run_json(R"({"states": ["Succeeded"], "conditions": [{"reason": "PodCompleted", "status": "True",
                          "minTimeSinceLastTransitionSeconds": 300}]})",
                     {with("Succeeded", json::array({condition("Initialized", "True", "PodCompleted", kOldTransition),
                                                     condition("Ready", "False", "PodCompleted", kOldTransition)}))}),
            Keys{"default/p1"});
  EXPECT_EQ(run_json(R"({"states": ["Succeeded"], "conditions": [{"minTimeSinceLastTransitionSeconds": 14400}]})",
                     {with("Succeeded", json::array({condition("Ready", "False", "", kNewTransition)}))}).size(),
            0u);
  // Only the conditions the filter matches are timed: the recent OtherReason one does not count.
  EXPECT_EQ(run_json(R"({"conditions": [{"reason": "PodCompleted", "minTimeSinceLastTransitionSeconds": 300}]})",
                     {with("", json::array({condition("Initialized", "", "PodCompleted", kOldTransition),
                                            condition("Ready", "", "OtherReason", kNewTransition)}))}),
            Keys{"default/p1"});
  EXPECT_EQ(run_json(R"({"states": ["Running"], "conditions": [{"minTimeSinceLastTransitionSeconds": 300}]})",
                     {with("Running", nullptr)}).size(),
            0u);
}

TEST(PodLifeTime, OwnerKindsExitCodesAndCombined) {
  auto failed = [](const std::string& name, bool job) {
    return bare_status_pod(name, [&](json& p) {
      p["status"]["phase"] = "Failed";
      if (job) p["metadata"]["ownerReferences"] = json::array({{{"kind", "Job"}, {"name", "job1"}, {"apiVersion", "batch/v1"}}});
    });
  };
  EXPECT_EQ(run_json(R"({"states": ["Failed"], "ownerKinds": {"exclude": ["Job"]}})", {failed("p1", true)}).size(), 0u);
  EXPECT_EQ(run_json(R"({"states": ["Failed"], "ownerKinds": {"exclude": ["Job"]}})", {failed("p1", true), failed("p2", false)}),
            Keys{"default/p2"});
  EXPECT_EQ(run_json(R"({"states": ["Failed"], "ownerKinds": {"include": ["Job"]}})", {failed("p1", true), failed("p2", false)}),
            Keys{"default/p1"});
  json exit1 = terminated_in("containerStatuses", "", 1);
  exit1["status"]["phase"] = "Failed";
  EXPECT_EQ(run_json(R"({"states": ["Failed"], "exitCodes": [1]})", {exit1}).size(), 1u);
  EXPECT_EQ(run_json(R"({"states": ["Failed"], "exitCodes": [2]})", {exit1}).size(), 0u);
  // Succeeded + PodCompleted condition + transition time threshold.
  json stale = bare_status_pod("stale-completed", [](json& p) {
    p["status"] = {{"phase", "Succeeded"},
                   {"conditions", json::array({condition("Initialized", "True", "PodCompleted", kOldTransition),
                                               condition("Ready", "False", "PodCompleted", kOldTransition)})}};
  });
  json recent = bare_status_pod("recent-completed", [](json& p) {
    p["status"] = {{"phase", "Succeeded"},
                   {"conditions", json::array({condition("Initialized", "True", "PodCompleted", kNewTransition)})}};
  });
  json running = bare_status_pod("running-pod", [](json& p) { p["status"]["phase"] = "Running"; });
  EXPECT_EQ(run_json(R"({"states": ["Succeeded"], "conditions": [{"reason": "PodCompleted", "status": "True",
                          "minTimeSinceLastTransitionSeconds": 300}]})",
                     {stale, recent, running}),
            Keys{"default/stale-completed"});
  // RemoveFailedPods' use: Failed, maxPodLifeTimeSeconds 0, Jobs excluded.
  json failed_rs = terminated_in("containerStatuses", "Error");
  failed_rs["metadata"]["name"] = "failed-rs";
  failed_rs["status"]["phase"] = "Failed";
  EXPECT_EQ(run_json(R"({"states": ["Failed"], "maxPodLifeTimeSeconds": 0, "ownerKinds": {"exclude": ["Job"]}})",
                     {failed_rs, failed("failed-job", true)}),
            Keys{"default/failed-rs"});
}

// TestPodLifeTime_EvictorConfiguration and the per-namespace limit: through the DefaultEvictor.
TEST(PodLifeTime, EvictorConfigurationAndNamespaceLimit) {
  json pvc = aged("p11", kOlder);
  pvc["spec"]["volumes"] = json::array({{{"name", "pvc"}, {"persistentVolumeClaim", {{"claimName", "foo"}}}}});
  auto run_with = [](const EvictorArgs& ea, std::vector<json> pods, std::optional<int> per_namespace = std::nullopt) {
    pods.insert(pods.begin(), node("node1"));
    Cluster c = build(pods);
    framework::EvictorOptions o;
    o.max_per_namespace = per_namespace;
    EvictorHandle h(c, ea, o);
    plt::Plugin plugin(max_age());
    return run_plugin(plugin, h);
  };
  EvictorArgs ignore_pvc;
  ignore_pvc.ignore_pvc_pods = true;
  EXPECT_EQ(run_with(ignore_pvc, {pvc}).size(), 0u);
  EXPECT_EQ(run_with({}, {pvc}).size(), 1u);
  EXPECT_EQ(run_with({}, {aged("p1", kNewer), aged("p2", kOlder), aged("p3", kOlder + std::chrono::hours(1))}, 1),
            Keys{"default/p2"});
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
