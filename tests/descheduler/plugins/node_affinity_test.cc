// RemovePodsViolatingNodeAffinity (required affinity): the Kubernetes descheduler's
// node_affinity_test.go as facts. The pod requires label foo=bar; "labelled" has it,
// "unlabelled" (where the pod runs) does not.
#include <gtest/gtest.h>

#include <optional>

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

// TestRemovePodsViolatingNodeAffinity row by row with upstream's own objects: nodes of
// 2000m, 3000 bytes and 10 pods; on one node podWithNodeAffinity (the type's term on
// kubernetes.io/desiredNode=yes), pod1 and pod2, each 100m and owned by a Pod; through
// the DefaultEvictor with the row's limits and nodeFit.
namespace upstream {

const char* kWithout = "nodeWithoutLabels";
const char* kWith = "nodeWithLabels";
const char* kCordoned = "unschedulableNodeWithLabels";

json test_node(const std::string& name) {
  json n = node(name, {}, "2000m", "3000", "10");
  if (name != kWithout) n["metadata"]["labels"]["kubernetes.io/desiredNode"] = "yes";
  if (name == kCordoned) n["spec"]["unschedulable"] = true;
  return n;
}

std::vector<json> pods_on(const std::string& node_name, bool terminating, const std::string& type) {
  const json term = {{"matchExpressions",
                      json::array({{{"key", "kubernetes.io/desiredNode"}, {"operator", "In"}, {"values", {"yes"}}}})}};
  std::vector<json> out;
  for (const char* name : {"podWithNodeAffinity", "pod1", "pod2"}) {
    json p = pod(name, node_name, {.cpu = "100m", .memory = "0", .owner_kind = "Pod"});
    if (terminating) p["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z";
    out.push_back(p);
  }
  json& a = out[0]["spec"]["affinity"]["nodeAffinity"];
  a = json::object();
  if (type == na::kRequired) a["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", json::array({term})}};
  if (type == na::kPreferred)
    a["preferredDuringSchedulingIgnoredDuringExecution"] = json::array({{{"weight", 10}, {"preference", term}}});
  return out;
}

struct Row {
  std::string description;
  const char* type;
  std::vector<std::string> nodes;
  bool terminating;
  size_t expected;
  std::optional<int> per_node = std::nullopt, per_namespace = std::nullopt, total = std::nullopt;
  bool node_fit = false;
};

size_t run(const Row& row) {
  // The pods' node may be one the row does not have, as upstream's.
  std::vector<json> objs;
  for (const auto& n : row.nodes) objs.push_back(test_node(n));
  for (json& p : pods_on(kWithout, row.terminating, row.type)) objs.push_back(p);
  Cluster c = build(objs);
  EvictorHandle h(c, {}, with_limits(row.node_fit, row.per_node, row.per_namespace, row.total));
  na::Args a;
  a.node_affinity_type = {row.type};
  na::Plugin plugin(a);
  return run_plugin(plugin, h).size();
}

}  // namespace upstream

TEST(RemovePodsViolatingNodeAffinity, UpstreamRowsThroughTheEvictor) {
  using upstream::kCordoned, upstream::kWith, upstream::kWithout;
  const std::string other = "Pod is scheduled on node without matching labels, another schedulable node available, ";
  const char *req = na::kRequired, *pref = na::kPreferred;
  const std::vector<std::string> both = {kWithout, kWith};
  // "Invalid Affinity type, should not evict any pods": the type is refused by validation.
  EXPECT_FALSE(na::parse_args(ctx(), json::parse(R"({"nodeAffinityType": ["requiredDuringSchedulingRequiredDuringExecution"]})"),
                              "args")
                   .ok());
  // "Pod is correctly scheduled on node, no eviction expected": the pods on the matching node.
  for (const char* type : {req, pref}) {
    std::vector<json> objs = {upstream::test_node(kWith)};
    for (json& p : upstream::pods_on(kWith, false, type)) objs.push_back(p);
    Cluster c = build(objs);
    EvictorHandle h(c, {}, with_node_fit(false));
    na::Args a;
    a.node_affinity_type = {type};
    na::Plugin plugin(a);
    EXPECT_EQ(run_plugin(plugin, h).size(), 0u) << "Pod is correctly scheduled on node, no eviction expected " << type;
  }
  const std::vector<upstream::Row> rows = {
      {"Pod is scheduled on node without matching labels, another schedulable node available, should be evicted", req, both, false, 1},
      {other.substr(0, other.size() - 2) + " with better fit, should be evicted", pref, both, false, 1},
      {other + "maxPodsToEvictPerNode set to 1, should be evicted [required affinity]", req, both, false, 1, 1},
      {other + "maxPodsToEvictPerNode set to 1, should be evicted [preferred affinity]", pref, both, false, 1, 1},
      {other + "maxPodsToEvictPerNode set to 0, should be not evicted [required affinity]", req, both, false, 0, 0},
      {other + "maxPodsToEvictPerNode set to 0, should be not evicted [preferred affinity]", pref, both, false, 0, 0},
      {other + "maxPodsToEvictPerNode set to 1, no pod evicted since pod terminating [required affinity]", req, both, true, 0, 1},
      {other + "maxPodsToEvictPerNode set to 1, no pod evicted since pod terminating [preferred affinity]", pref, both, true, 0, 1},
      {other + "maxNoOfPodsToEvictPerNamespace set to 1, should be evicted [required affinity]", req, both, false, 1,
       std::nullopt, 1},
      {other + "maxNoOfPodsToEvictTotal set to 0, should not be evicted [required affinity]", req, both, false, 0,
       std::nullopt, 1, 0},
      {other + "maxNoOfPodsToEvictPerNamespace set to 1, should be evicted [preferred affinity]", pref, both, false, 1,
       std::nullopt, 1},
      {other + "maxNoOfPodsToEvictPerNamespace set to 0, should not be evicted [required affinity]", req, both, false, 0,
       std::nullopt, 0},
      {other + "maxNoOfPodsToEvictPerNamespace set to 0, should not be evicted [preferred affinity]", pref, both, false, 0,
       std::nullopt, 0},
      {other + "maxNoOfPodsToEvictPerNamespace set to 1, no pod evicted since pod terminting [required affinity]", req, both,
       true, 0, std::nullopt, 1},
      {other + "maxNoOfPodsToEvictPerNamespace set to 1, no pod evicted since pod terminting [preferred affinity]", pref, both,
       true, 0, std::nullopt, 1},
      {"Pod is scheduled on node without matching labels, but no node where pod fits is available, should not evict "
       "[required affinity]",
       req, {kWithout, kCordoned}, false, 0, std::nullopt, std::nullopt, std::nullopt, true},
      {"Pod is scheduled on node without matching labels, but no node where pod fits is available, should not evict "
       "[preferred affinity]",
       pref, {kWithout, kCordoned}, false, 0, std::nullopt, std::nullopt, std::nullopt, true},
      {"Pod is scheduled on node without matching labels, and unschedulable node where pod could fit is available, should "
       "not evict [required affinity]",
       req, {kWith, kCordoned}, false, 0, 1, std::nullopt, std::nullopt, true},
      {"Pod is scheduled on node without matching labels, and unschedulable node where pod could fit is available, should "
       "not evict [preferred affinity]",
       pref, {kWith, kCordoned}, false, 0, 1, std::nullopt, std::nullopt, true},
  };
  for (const upstream::Row& row : rows) EXPECT_EQ(upstream::run(row), row.expected) << row.description;
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

// The pods are listed, every node before any eviction, with the scheduler's fit and the
// evictor's nodeFit judged then: each pod requires the other node; "b" would fit on "small"
// only once "a" has left.
TEST(RemovePodsViolatingNodeAffinity, NodeFitAskedWhenListed) {
  Cluster c = listing_cluster(
      [](json p) {
        const std::string other = p["spec"]["nodeName"] == "small" ? "large" : "small";
        p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
            {"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({{{"key", "site"}, {"operator", "In"},
                                                                                    {"values", {other}}}})}}})}};
        return p;
      },
      {node("small", {{"site", "small"}}, "1000m", "3000", "10"), node("large", {{"site", "large"}}, "2000m", "3000", "10")});
  EvictorHandle h(c, {}, with_node_fit(true));
  na::Args a;
  a.node_affinity_type = {na::kRequired};
  na::Plugin plugin(a);
  EXPECT_EQ(run_plugin(plugin, h), Keys{"default/a"});
}

}  // namespace
}  // namespace weft::descheduler::test
