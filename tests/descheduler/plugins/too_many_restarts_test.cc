// RemovePodsHavingTooManyRestarts: the Kubernetes descheduler's toomanyrestarts_test.go as
// facts. Pod i has 5*i init-container restarts and 20*i in its two containers; pods 6, 7
// and 8 (a DaemonSet's, one with local storage, a mirror pod) are the evictor's to keep.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/RemovePodsHavingTooManyRestarts/too_many_restarts.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace tmr = plugins::too_many_restarts;

json restarting(int i, const std::string& phase = "Running", json waiting_state = nullptr, bool init_waiting = false) {
  json p = pod("pod-" + std::to_string(i), "node1");
  json app = json::array({restarted(10 * i), restarted(10 * i)});
  json init = json::array({restarted(5 * i)});
  if (!waiting_state.is_null()) (init_waiting ? init : app)[0]["state"] = {{"waiting", {{"reason", waiting_state}}}};
  return with_status(p, phase, app, init);
}

std::vector<json> init_pods(const std::string& phase = "Running", json waiting_state = nullptr, bool init_waiting = false) {
  std::vector<json> out = {node("node1")};
  for (int i = 0; i <= 9; ++i) out.push_back(restarting(i, phase, waiting_state, init_waiting));
  return out;
}

size_t evictions(const tmr::Args& a, const std::vector<json>& objs, std::optional<int> per_node = std::nullopt) {
  Cluster c = build(objs);
  TestHandle h(c, t0());
  h.recorder().blocked = {"default/pod-6", "default/pod-7", "default/pod-8"};
  h.recorder().max_per_node = per_node;
  tmr::Plugin plugin(a);
  return run_plugin(plugin, h).size();
}

tmr::Args args_of(int32_t threshold, bool init, std::vector<std::string> states = {}) {
  tmr::Args a;
  a.pod_restart_threshold = threshold;
  a.including_init_containers = init;
  a.states = std::move(states);
  return a;
}

// TestRemovePodsHavingTooManyRestarts row by row with upstream's own objects: pod-0 ..
// pod-9 on node1 (100m, owned by a Pod; pod-6 a DaemonSet's, pod-7 with local storage,
// pod-8 a mirror pod), their status only the restart counts (no phase) unless the row
// sets one; CPU-consumer-1/2 (150m, 100 bytes) on node4/node5; nodes of 2000m, 3000
// bytes and 10 pods; through the DefaultEvictor with the row's limits and nodeFit.
namespace upstream {

using Apply = std::function<void(json&)>;

std::vector<json> init_pods(const Apply& apply = {}) {
  std::vector<json> out;
  for (int i = 0; i <= 9; ++i) {
    PodSpec spec{.cpu = "100m", .memory = "0", .owner_kind = i == 6 ? "DaemonSet" : i == 8 ? "" : "Pod"};
    spec.local_storage = i == 7;
    json p = pod("pod-" + std::to_string(i), "node1", spec);
    if (i == 8) p["metadata"]["annotations"]["kubernetes.io/config.mirror"] = "mirror";
    p["status"] = {{"initContainerStatuses", json::array({{{"name", "i"}, {"restartCount", 5 * i}}})},
                   {"containerStatuses", json::array({{{"name", "a"}, {"restartCount", 10 * i}}, {{"name", "b"}, {"restartCount", 10 * i}}})}};
    if (apply) apply(p);
    out.push_back(p);
  }
  out.push_back(pod("CPU-consumer-1", "node4", {.cpu = "150m", .memory = "100", .owner_kind = "Pod"}));
  out.push_back(pod("CPU-consumer-2", "node5", {.cpu = "150m", .memory = "100", .owner_kind = "Pod"}));
  return out;
}

json test_node(const std::string& name, const std::string& cpu = "2000m") { return node(name, {}, cpu, "3000", "10"); }

struct Row {
  std::string description;
  tmr::Args args;
  std::vector<json> pods;
  std::vector<json> nodes;
  size_t expected;
  framework::EvictorOptions options = {};
};

size_t run(const Row& row) {
  std::vector<json> objs = row.nodes;   // a CPU consumer's node may not exist, as upstream's
  objs.insert(objs.end(), row.pods.begin(), row.pods.end());
  Cluster c = build(objs);
  EvictorHandle h(c, {}, row.options);
  tmr::Plugin plugin(row.args);
  return run_plugin(plugin, h).size();
}

}  // namespace upstream

TEST(RemovePodsHavingTooManyRestarts, UpstreamRowsThroughTheEvictor) {
  using upstream::init_pods, upstream::test_node;
  auto a = [](int32_t threshold, bool init, std::vector<std::string> states = {}) { return args_of(threshold, init, std::move(states)); };
  const std::vector<json> one = {test_node("node1")};
  json gpu = test_node("node2");
  gpu["spec"]["taints"] = json::array({{{"key", "hardware"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  json cordoned = test_node("node3");
  cordoned["spec"]["unschedulable"] = true;
  const auto three = with_limits(false, 3, std::nullopt, std::nullopt);
  const auto three_fit = with_limits(true, 3, std::nullopt, std::nullopt);
  const auto phase = [](const char* p) { return [p](json& pod) { pod["status"]["phase"] = p; }; };
  const upstream::Apply crash = [](json& pod) { pod["status"]["containerStatuses"][0]["state"] = {{"waiting", {{"reason", "CrashLoopBackOff"}}}}; };
  const upstream::Apply init_crash = [](json& pod) {
    pod["status"]["initContainerStatuses"] = json::array({{{"name", "i"}, {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}});
  };
  const std::vector<upstream::Row> rows = {
      {"All pods have total restarts under threshold, no pod evictions", a(10000, true), init_pods(), one, 0},
      {"Some pods have total restarts bigger than threshold", a(1, true), init_pods(), one, 6},
      {"Nine pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions", a(25, true), init_pods(), one, 6},
      {"Nine pods have total restarts equals threshold(includingInitContainers=false), 5 pod evictions", a(25, false), init_pods(), one, 5},
      {"All pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions", a(20, true), init_pods(), one, 6},
      {"Nine pods have total restarts equals threshold(includingInitContainers=false), 6 pod evictions", a(20, false), init_pods(), one, 6},
      {"Five pods have total restarts bigger than threshold(includingInitContainers=true), but only 1 pod eviction",
       a(5 * 25 + 1, true), init_pods(), one, 1},
      {"Five pods have total restarts bigger than threshold(includingInitContainers=false), but only 1 pod eviction",
       a(5 * 20 + 1, false), init_pods(), one, 1},
      {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3), 3 pod evictions", a(1, true), init_pods(), one, 3, three},
      {"All pods have total restarts equals threshold(maxNoOfPodsToEvictPerNamespace=3), 3 pod evictions", a(1, true), init_pods(),
       one, 3, with_limits(false, std::nullopt, 3, std::nullopt)},
      {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node is tainted, 0 pod evictions",
       a(1, true), init_pods(), {test_node("node1"), gpu}, 0, three_fit},
      {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node is not schedulable, 0 pod "
       "evictions",
       a(1, true), init_pods(), {test_node("node1"), cordoned}, 0, three_fit},
      {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node does not have enough CPU, 0 "
       "pod evictions",
       a(1, true), init_pods(), {test_node("node1"), test_node("node4", "200m")}, 0, three_fit},
      {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node has enough CPU, 3 pod "
       "evictions",
       a(1, true), init_pods(), {test_node("node1"), test_node("node5")}, 3, three_fit},
      {"pods are in CrashLoopBackOff with states=CrashLoopBackOff, 3 pod evictions", a(1, false, {"CrashLoopBackOff"}),
       init_pods(crash), {test_node("node1"), test_node("node5")}, 3, three_fit},
      {"pods without CrashLoopBackOff with states=CrashLoopBackOff, 0 pod evictions", a(1, false, {"CrashLoopBackOff"}), init_pods(),
       {test_node("node1"), test_node("node5")}, 0, three_fit},
      {"pods running with state=Running, 3 pod evictions", a(1, false, {"Running"}), init_pods(phase("Running")), one, 3, three},
      {"pods pending with state=Running, 0 pod evictions", a(1, false, {"Running"}), init_pods(phase("Pending")), one, 0, three},
      {"pods pending with initContainer with states=CrashLoopBackOff threshold(includingInitContainers=true), 3 pod evictions",
       a(1, true, {"CrashLoopBackOff"}), init_pods(init_crash), one, 3, three},
      {"pods pending with initContainer with states=CrashLoopBackOff threshold(includingInitContainers=false), 0 pod evictions",
       a(1, false, {"CrashLoopBackOff"}), init_pods(init_crash), one, 0, three},
  };
  for (const upstream::Row& row : rows) EXPECT_EQ(upstream::run(row), row.expected) << row.description;
}

TEST(RemovePodsHavingTooManyRestarts, UpstreamTable) {
  EXPECT_EQ(evictions(args_of(10000, true), init_pods()), 0u);
  EXPECT_EQ(evictions(args_of(1, true), init_pods()), 6u);
  EXPECT_EQ(evictions(args_of(25, true), init_pods()), 6u);
  EXPECT_EQ(evictions(args_of(25, false), init_pods()), 5u);
  EXPECT_EQ(evictions(args_of(20, true), init_pods()), 6u);
  EXPECT_EQ(evictions(args_of(20, false), init_pods()), 6u);
  EXPECT_EQ(evictions(args_of(5 * 25 + 1, true), init_pods()), 1u);
  EXPECT_EQ(evictions(args_of(5 * 20 + 1, false), init_pods()), 1u);
  EXPECT_EQ(evictions(args_of(1, true), init_pods(), 3), 3u);
}

TEST(RemovePodsHavingTooManyRestarts, States) {
  EXPECT_EQ(evictions(args_of(1, false, {"CrashLoopBackOff"}), init_pods("Running", "CrashLoopBackOff"), 3), 3u);
  EXPECT_EQ(evictions(args_of(1, false, {"CrashLoopBackOff"}), init_pods(), 3), 0u);
  EXPECT_EQ(evictions(args_of(1, false, {"Running"}), init_pods("Running"), 3), 3u);
  EXPECT_EQ(evictions(args_of(1, false, {"Running"}), init_pods("Pending"), 3), 0u);
  EXPECT_EQ(evictions(args_of(1, true, {"CrashLoopBackOff"}), init_pods("Pending", "CrashLoopBackOff", true), 3), 3u);
  EXPECT_EQ(evictions(args_of(1, false, {"CrashLoopBackOff"}), init_pods("Pending", "CrashLoopBackOff", true), 3), 0u);
}

TEST(RemovePodsHavingTooManyRestarts, MostRestartsFirst) {
  Cluster c = build(init_pods());
  TestHandle h(c, t0());
  h.recorder().blocked = {"default/pod-6", "default/pod-7", "default/pod-8"};
  h.recorder().max_per_node = 2;
  tmr::Plugin plugin(args_of(1, true));
  // pods 8, 7 and 6 are kept by the evictor: after pod-9 comes pod-5.
  EXPECT_EQ(run_plugin(plugin, h), (std::vector<std::string>{"default/pod-9", "default/pod-5"}));
}

// The rows run through the DefaultEvictor: pod-6 a DaemonSet's, pod-7 with local storage,
// pod-8 a mirror pod (the evictor keeps them); a 150m CPU consumer on node4 and node5.
size_t evictions_through_evictor(std::vector<json> nodes, framework::EvictorOptions options) {
  std::vector<json> objs = std::move(nodes);
  for (int i = 0; i <= 9; ++i) {
    json p = restarting(i);
    p["spec"]["containers"][0]["resources"]["requests"] = {{"cpu", "100m"}, {"memory", "0"}};
    if (i == 6) p["metadata"]["ownerReferences"][0]["kind"] = "DaemonSet";
    if (i == 7) p["spec"]["volumes"] = json::array({{{"name", "scratch"}, {"emptyDir", json::object()}}});
    if (i == 8) p["metadata"]["annotations"]["kubernetes.io/config.mirror"] = "mirror";
    objs.push_back(p);
  }
  for (const char* n : {"node4", "node5"})
    objs.push_back(pod(std::string("CPU-consumer-") + n, n, {.cpu = "150m", .memory = "100"}));
  Cluster c = build(objs);
  EvictorHandle h(c, {}, options);
  tmr::Plugin plugin(args_of(1, true));
  return run_plugin(plugin, h).size();
}

json upstream_node(const std::string& name, const std::string& cpu = "2000m") { return node(name, {}, cpu, "3000", "10"); }

TEST(RemovePodsHavingTooManyRestarts, LimitsAndNodeFitThroughTheEvictor) {
  framework::EvictorOptions per_namespace;
  per_namespace.max_per_namespace = 3;
  EXPECT_EQ(evictions_through_evictor({upstream_node("node1")}, per_namespace), 3u);
  framework::EvictorOptions fit = with_node_fit(true);
  fit.max_per_node = 3;
  json tainted = upstream_node("node2");
  tainted["spec"]["taints"] = json::array({{{"key", "hardware"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  EXPECT_EQ(evictions_through_evictor({upstream_node("node1"), tainted}, fit), 0u);
  json cordoned = upstream_node("node3");
  cordoned["spec"]["unschedulable"] = true;
  EXPECT_EQ(evictions_through_evictor({upstream_node("node1"), cordoned}, fit), 0u);
  EXPECT_EQ(evictions_through_evictor({upstream_node("node1"), upstream_node("node4", "200m")}, fit), 0u);
  EXPECT_EQ(evictions_through_evictor({upstream_node("node1"), upstream_node("node5")}, fit), 3u);
}

TEST(RemovePodsHavingTooManyRestarts, Validation) {
  auto parse = [](const char* text) { return tmr::parse_args(ctx(), json::parse(text), "args"); };
  auto none = tmr::parse_args(ctx(), nullptr, "args");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("args.podRestartThreshold"), std::string::npos) << none.message();
  EXPECT_FALSE(parse(R"({"podRestartThreshold": 0})").ok());
  EXPECT_FALSE(parse(R"({"podRestartThreshold": 3, "states": ["Pending"]})").ok());
  auto ok = parse(R"({"podRestartThreshold": 100, "includingInitContainers": true, "states": ["CrashLoopBackOff"]})");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->pod_restart_threshold, 100);
}

// nodeFit is asked when the pods are listed, every node before any eviction (upstream wraps
// PreEvictionFilter into the listing): "b" would fit on "small" only once "a" has left.
TEST(RemovePodsHavingTooManyRestarts, NodeFitAskedWhenListed) {
  Cluster c = listing_cluster([](json p) {
    p["status"]["containerStatuses"] = json::array({restarted(5)});
    return p;
  });
  EvictorHandle h(c, {}, with_node_fit(true));
  tmr::Args a;
  a.pod_restart_threshold = 1;
  tmr::Plugin plugin(a);
  EXPECT_EQ(run_plugin(plugin, h), std::vector<std::string>{"default/a"});
}

}  // namespace
}  // namespace weft::descheduler::test
