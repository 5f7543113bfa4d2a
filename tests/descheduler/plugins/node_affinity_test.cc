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

std::vector<std::string> run(const std::vector<json>& objs, std::function<void(RecordingEvictor&)> setup = {},
                             const char* type = na::kRequired) {
  Cluster c = build(objs);
  TestHandle h(c, t0());
  if (setup) setup(h.recorder());
  na::Args a;
  a.node_affinity_type = {type};
  na::Plugin plugin(a);
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

json preferring(const std::string& name, const std::string& node_name) {
  json p = pod(name, node_name);
  p["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = json::array(
      {{{"weight", 10},
        {"preference", {{"matchExpressions", json::array({{{"key", "foo"}, {"operator", "In"}, {"values", {"bar"}}}})}}}}});
  return p;
}

std::vector<std::string> run_preferred(const std::vector<json>& objs, std::function<void(RecordingEvictor&)> setup = {}) {
  return run(objs, std::move(setup), na::kPreferred);
}

// The preferred rows of upstream's table: evicted only where another node weighs more by
// the pod's preferred terms and would take it; pods without preferred terms stay.
TEST(RemovePodsViolatingNodeAffinity, PreferredUpstreamTable) {
  const json labelled = node("labelled", {{"foo", "bar"}});
  const json unlabelled = node("unlabelled");
  // On its preferred node: stays; the plain pods beside it stay too.
  EXPECT_EQ(run_preferred({labelled, unlabelled, preferring("p1", "labelled"), pod("plain", "labelled")}), Keys{});
  // A better node exists and takes it: evicted.
  EXPECT_EQ(run_preferred({labelled, unlabelled, preferring("p1", "unlabelled"), pod("plain", "unlabelled")}),
            Keys{"default/p1"});
  EXPECT_EQ(run_preferred({labelled, unlabelled, preferring("p1", "unlabelled")}, [](RecordingEvictor& e) { e.max_per_node = 0; }),
            Keys{});
  EXPECT_EQ(run_preferred({labelled, unlabelled, preferring("p1", "unlabelled")}, [](RecordingEvictor& e) { e.max_total = 0; }),
            Keys{});
  json terminating = preferring("p1", "unlabelled");
  terminating["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z";
  EXPECT_EQ(run_preferred({labelled, unlabelled, terminating}), Keys{});
  // The better node is unschedulable, or no other node weighs more: stays.
  EXPECT_EQ(run_preferred({unschedulable(labelled), unlabelled, preferring("p1", "unlabelled")}), Keys{});
  EXPECT_EQ(run_preferred({node("other"), unlabelled, preferring("p1", "unlabelled")}), Keys{});
  // The evictor refuses the better node: stays.
  EXPECT_EQ(run_preferred({labelled, unlabelled, preferring("p1", "unlabelled")},
                          [](RecordingEvictor& e) { e.refused_targets = {"labelled"}; }),
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
  ASSERT_TRUE(preferred.ok()) << preferred.message();
  EXPECT_EQ(preferred->node_affinity_type, (std::vector<std::string>{na::kPreferred}));
  EXPECT_TRUE(na::parse_args(ctx(), json::parse(R"({"nodeAffinityType": ["requiredDuringSchedulingIgnoredDuringExecution"]})"),
                             "args")
                  .ok());
}

}  // namespace
}  // namespace weft::descheduler::test
