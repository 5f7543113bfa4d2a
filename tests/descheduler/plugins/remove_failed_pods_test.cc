// RemoveFailedPods: the cases of the Kubernetes descheduler's own table (failedpods_test.go),
// as facts: which failed pods a given args set evicts.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/RemoveFailedPods/remove_failed_pods.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace rfp = plugins::remove_failed_pods;

// Upstream's table builds args without defaults: no minimum age unless a case sets one.
rfp::Args args_of(bool init, std::vector<std::string> reasons, std::vector<int32_t> codes,
                  std::vector<std::string> exclude_kinds = {}, std::optional<int64_t> min_age = std::nullopt) {
  rfp::Args a;
  a.including_init_containers = init;
  a.reasons = std::move(reasons);
  a.exit_codes = std::move(codes);
  a.exclude_owner_kinds = std::move(exclude_kinds);
  a.min_pod_lifetime_seconds = min_age;
  return a;
}

json failed(const std::string& name, const std::string& node_name, json containers, json init = json::array(),
            const std::string& reason = "") {
  return created_at(with_status(pod(name, node_name), "Failed", std::move(containers), std::move(init), reason), t0());
}

size_t evictions(const rfp::Args& a, const std::vector<json>& pods, int nodes = 1) {
  std::vector<json> objs;
  for (int i = 1; i <= nodes; ++i) objs.push_back(node("node" + std::to_string(i)));
  objs.insert(objs.end(), pods.begin(), pods.end());
  Cluster c = build(objs);
  TestHandle h(c, t0());
  rfp::Plugin plugin(a);
  return run_plugin(plugin, h).size();
}

TEST(RemoveFailedPods, UpstreamTable) {
  struct Case {
    const char* description;
    rfp::Args args;
    std::vector<json> pods;
    size_t expected;
    int nodes = 1;
  };
  std::vector<Case> cases = {
      {"0 failures, 0 evictions (and default empty args, 0 failures, 0 evictions)", args_of(false, {}, {}), {}, 0},
      {"1 container terminated with reason NodeAffinity, 1 eviction", args_of(false, {}, {}),
       {failed("p1", "node1", {terminated("NodeAffinity")})}, 1},
      {"1 container terminated with exitCode 1, 1 eviction", args_of(false, {}, {1}), {failed("p1", "node1", {terminated("", 1)})}, 1},
      {"1 container terminated with exitCode 1, reason NodeAffinity, 1 eviction", args_of(false, {}, {1}),
       {failed("p1", "node1", {terminated("NodeAffinity", 1)})}, 1},
      {"1 container terminated with exitCode 1, expected exitCode 2, 0 eviction", args_of(false, {}, {2}), {failed("p1", "node1", {terminated("", 1)})}, 0},
      {"2 containers terminated with exitCode 1 and 2 respectively, 2 evictions", args_of(false, {}, {1, 2, 3}),
       {failed("p1", "node1", {terminated("", 1)}), failed("p2", "node1", {terminated("", 2)})}, 2},
      {"2 containers terminated with exitCode 1 and 2 respectively, expected exitCode 1, 1 eviction", args_of(false, {}, {1}),
       {failed("p1", "node1", {terminated("", 1)}), failed("p2", "node1", {terminated("", 2)})}, 1},
      {"1 init container terminated with reason NodeAffinity, 1 eviction", args_of(true, {}, {}),
       {failed("p1", "node1", json::array(), {terminated("NodeAffinity")})}, 1},
      {"1 init container terminated with exitCode 1, 1 eviction", args_of(true, {}, {1}),
       {failed("p1", "node1", {terminated("", 1)})}, 1},
      {"1 init container terminated with exitCode 2, expected 1, 0 eviction", args_of(true, {}, {1}), {failed("p1", "node1", {terminated("", 2)})}, 0},
      {"1 init container waiting with reason CreateContainerConfigError, 1 eviction", args_of(true, {}, {}),
       {failed("p1", "node1", json::array(), {waiting("CreateContainerConfigError")})}, 1},
      {"2 init container waiting with reason CreateContainerConfigError, 2 nodes, 2 evictions", args_of(true, {}, {}),
       {failed("p1", "node1", json::array(), {terminated("CreateContainerConfigError")}),
        failed("p2", "node2", json::array(), {terminated("CreateContainerConfigError")})},
       2, 2},
      {"include reason=CreateContainerConfigError, 1 container terminated with reason CreateContainerConfigError, 1 eviction", args_of(false, {"CreateContainerConfigError"}, {}),
       {failed("p1", "node1", {terminated("CreateContainerConfigError")})}, 1},
      {"include reason=CreateContainerConfigError+NodeAffinity, 1 container terminated with reason CreateContainerConfigError, "
       "1 eviction", args_of(false, {"CreateContainerConfigError", "NodeAffinity"}, {}),
       {failed("p1", "node1", {terminated("CreateContainerConfigError")})}, 1},
      {"include reason=CreateContainerConfigError, 1 container terminated with reason NodeAffinity, 0 eviction", args_of(false, {"CreateContainerConfigError"}, {}),
       {failed("p1", "node1", {terminated("NodeAffinity")})}, 0},
      {"include init container=false, 1 init container waiting with reason CreateContainerConfigError, 0 eviction",
       args_of(false, {"CreateContainerConfigError"}, {}),
       {failed("p1", "node1", json::array(), {waiting("CreateContainerConfigError")})}, 0},
      {"lifetime 1 hour, 1 container terminated with reason NodeAffinity, 0 eviction", args_of(false, {}, {}, {}, 3600),
       {failed("p1", "node1", {terminated("NodeAffinity")})}, 0},
      {"excluded owner kind=ReplicaSet, 1 init container terminated with owner kind=ReplicaSet, 0 eviction", args_of(true, {}, {}, {"ReplicaSet"}),
       {failed("p1", "node1", json::array(), {terminated("NodeAffinity")})}, 0},
      {"excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1 eviction", args_of(true, {}, {}, {"DaemonSet"}),
       {failed("p1", "node1", json::array(), {terminated("NodeAffinity")})}, 1},
      {"include reason=Shutdown, 2 containers terminated with reason ShutDown, 2 evictions", args_of(false, {"Shutdown"}, {}),
       {failed("p1", "node1", json::array(), json::array(), "Shutdown"),
        failed("p2", "node1", json::array(), json::array(), "Shutdown")},
       2},
  };
  for (const auto& c : cases) EXPECT_EQ(evictions(c.args, c.pods, c.nodes), c.expected) << c.description;
}

// The rows run with DefaultEvictorArgs{NodeFit: true}: the evictor lets a failed pod go
// only where the scheduler takes it on another node.
size_t evictions_with_node_fit(const rfp::Args& a, const std::vector<json>& objects) {
  Cluster c = build(objects);
  EvictorHandle h(c, {}, with_node_fit(true));
  rfp::Plugin plugin(a);
  return run_plugin(plugin, h).size();
}

TEST(RemoveFailedPods, NodeFitKeepsPodsNoOtherNodeTakes) {
  SCOPED_TRACE("upstream: nodeFit=true, 1 unschedulable node, 1 container terminated with reason NodeAffinity, 0 eviction");
  SCOPED_TRACE("upstream: nodeFit=true, only available node does not have enough resources, 1 container terminated with "
               "reason CreateContainerConfigError, 0 eviction");
  SCOPED_TRACE("upstream: 1 container terminated with reason ShutDown, 0 evictions");
  auto small = [](const std::string& name, const std::string& node_name) {
    return created_at(with_status(pod(name, node_name, {.cpu = "1m", .memory = "1"}), "Failed", {terminated("NodeAffinity")}), t0());
  };
  json cordoned = node("node2", {}, "2000m", "2000", "10");
  cordoned["spec"]["unschedulable"] = true;
  EXPECT_EQ(evictions_with_node_fit(args_of(false, {}, {}), {node("node1", {}, "2000m", "3000", "10"), cordoned, small("p1", "node1")}),
            0u);
  json config_error = created_at(
      with_status(pod("p1", "node1", {.cpu = "1m", .memory = "1"}), "Failed", {terminated("CreateContainerConfigError")}), t0());
  EXPECT_EQ(evictions_with_node_fit(args_of(false, {"CreateContainerConfigError"}, {}),
                                    {node("node1", {}, "1m", "1", "10"), node("node2", {}, "0", "0", "10"), config_error}),
            0u);
  // One node only: with nodeFit a pod whose status reason is Shutdown has nowhere to go.
  EXPECT_EQ(evictions_with_node_fit(args_of(false, {}, {}), {node("node1", {}, "2000m", "3000", "10"),
                                                             failed("p1", "node1", json::array(), json::array(), "Shutdown")}),
            0u);
  // ... and without nodeFit it goes (upstream asks for another node only with nodeFit).
  Cluster c = build({node("node1", {}, "2000m", "3000", "10"), failed("p1", "node1", json::array(), json::array(), "Shutdown")});
  EvictorHandle h(c, {}, with_node_fit(false));
  rfp::Plugin plugin(args_of(false, {}, {}));
  EXPECT_EQ(run_plugin(plugin, h).size(), 1u);
}

TEST(RemoveFailedPods, PodInTerminationStays) {
  SCOPED_TRACE("upstream: excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1 pod in "
               "termination; nothing should be moved");
  json p = failed("p1", "node1", json::array(), {terminated("NodeAffinity")});
  p["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z";
  EXPECT_EQ(evictions(args_of(true, {}, {}, {"DaemonSet"}), {p}), 0u);
}

TEST(RemoveFailedPods, RunningPodsAreNotFailed) {
  EXPECT_EQ(evictions(args_of(false, {}, {}), {pod("p1", "node1")}), 0u);
}

TEST(RemoveFailedPods, DefaultsAndValidation) {
  auto a = rfp::parse_args(ctx(), nullptr, "args");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->min_pod_lifetime_seconds, 3600);   // upstream's default
  EXPECT_FALSE(a->including_init_containers);
  auto bad = rfp::parse_args(ctx(), json::parse(R"({"namespaces": {"include": ["a"], "exclude": ["b"]}})"), "args");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("args.namespaces"), std::string::npos) << bad.message();
  auto typo = rfp::parse_args(ctx(), json::parse(R"({"reason": ["x"]})"), "args");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.message().find("args.reason: unknown field"), std::string::npos) << typo.message();
}

TEST(RemoveFailedPods, OldEnoughFailedPodWithDefaultArgs) {
  auto a = rfp::parse_args(ctx(), nullptr, "args");
  ASSERT_TRUE(a.ok());
  json old = with_status(pod("p1", "node1"), "Failed", {terminated("Error", 1)});
  old = created_at(old, t0() - std::chrono::hours(2));
  json young = created_at(with_status(pod("p2", "node1"), "Failed", {terminated("Error", 1)}), t0() - std::chrono::minutes(5));
  Cluster c = build({node("node1"), old, young});
  TestHandle h(c, t0());
  rfp::Plugin plugin(*a);
  EXPECT_EQ(run_plugin(plugin, h), std::vector<std::string>{"default/p1"});
}

// nodeFit is asked when the pods are listed, every node before any eviction, as upstream.
// A failed pod holds no room, so no eviction of this plugin frees any: both go.
TEST(RemoveFailedPods, NodeFitAskedWhenListed) {
  Cluster c = listing_cluster([](json p) { return created_at(with_status(std::move(p), "Failed"), t0()); });
  EvictorHandle h(c, {}, with_node_fit(true));
  rfp::Plugin plugin(args_of(false, {}, {}));
  EXPECT_EQ(run_plugin(plugin, h), (std::vector<std::string>{"default/a", "default/b"}));
}

}  // namespace
}  // namespace weft::descheduler::test
