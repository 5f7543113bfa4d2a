// RemovePodsViolatingNodeAffinity (required affinity): the Kubernetes descheduler's
// node_affinity_test.go as facts. The pod requires label foo=bar; "labelled" has it,
// "unlabelled" (where the pod runs) does not.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/RemovePodsViolatingNodeAffinity/node_affinity.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace na = plugins::node_affinity;

json requiring(const std::string& name, const std::string& node_name) {
  json p = pod(name, node_name);
  p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms",
       json::array({{{"matchExpressions", json::array({{{"key", "foo"}, {"operator", "In"}, {"values", {"bar"}}}})}}})}};
  return p;
}

na::Args required() {
  na::Args a;
  a.node_affinity_type = {na::kRequired};
  return a;
}

std::vector<std::string> run(const std::vector<json>& objs, std::function<void(RecordingEvictor&)> setup = {}) {
  Cluster c = build(objs);
  TestHandle h(c, t0());
  if (setup) setup(h.recorder());
  na::Plugin plugin(required());
  return run_plugin(plugin, h);
}

json unschedulable(json n) {
  n["spec"]["unschedulable"] = true;
  return n;
}

using Keys = std::vector<std::string>;

TEST(RemovePodsViolatingNodeAffinity, UpstreamTable) {
  const json labelled = node("labelled", {{"foo", "bar"}});
  const json unlabelled = node("unlabelled");
  // Correctly placed: stays.
  EXPECT_EQ(run({labelled, unlabelled, requiring("p1", "labelled")}), Keys{});
  // On a node that no longer matches, another schedulable node matches: evicted.
  EXPECT_EQ(run({labelled, unlabelled, requiring("p1", "unlabelled")}), Keys{"default/p1"});
  EXPECT_EQ(run({labelled, unlabelled, requiring("p1", "unlabelled")}, [](RecordingEvictor& e) { e.max_per_node = 1; }),
            Keys{"default/p1"});
  EXPECT_EQ(run({labelled, unlabelled, requiring("p1", "unlabelled")}, [](RecordingEvictor& e) { e.max_per_node = 0; }),
            Keys{});
  EXPECT_EQ(run({labelled, unlabelled, requiring("p1", "unlabelled")}, [](RecordingEvictor& e) { e.max_total = 0; }),
            Keys{});
  // Terminating: stays.
  json terminating = requiring("p1", "unlabelled");
  terminating["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z";
  EXPECT_EQ(run({labelled, unlabelled, terminating}), Keys{});
  // No other node matches, or the matching one is unschedulable: stays.
  EXPECT_EQ(run({unlabelled, node("other"), requiring("p1", "unlabelled")}), Keys{});
  EXPECT_EQ(run({unschedulable(labelled), unlabelled, requiring("p1", "unlabelled")}), Keys{});
  // The evictor refuses the only matching node (e.g. nodeFit finds no room there): stays.
  EXPECT_EQ(run({labelled, unlabelled, requiring("p1", "unlabelled")},
                [](RecordingEvictor& e) { e.refused_targets = {"labelled"}; }),
            Keys{});
}

TEST(RemovePodsViolatingNodeAffinity, NodeSelectorAloneIsNotNodeAffinity) {
  // Upstream acts on requiredDuringSchedulingIgnoredDuringExecution only.
  EXPECT_EQ(run({node("labelled", {{"foo", "bar"}}), node("unlabelled"),
                 pod("p1", "unlabelled", {.node_selector = {{"foo", "bar"}}})}),
            Keys{});
}

TEST(RemovePodsViolatingNodeAffinity, Validation) {
  auto none = na::parse_args(ctx(), nullptr, "args");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("args.nodeAffinityType: is required"), std::string::npos) << none.message();
  auto wrong = na::parse_args(ctx(), json::parse(R"({"nodeAffinityType": ["requiredDuringSchedulingRequiredDuringExecution"]})"),
                              "args");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("args.nodeAffinityType[0]"), std::string::npos) << wrong.message();
  auto preferred = na::parse_args(ctx(), json::parse(R"({"nodeAffinityType": ["preferredDuringSchedulingIgnoredDuringExecution"]})"),
                                  "args");
  ASSERT_FALSE(preferred.ok());
  EXPECT_NE(preferred.message().find("not supported"), std::string::npos) << preferred.message();
  EXPECT_TRUE(na::parse_args(ctx(), json::parse(R"({"nodeAffinityType": ["requiredDuringSchedulingIgnoredDuringExecution"]})"),
                             "args")
                  .ok());
}

}  // namespace
}  // namespace weft::descheduler::test
