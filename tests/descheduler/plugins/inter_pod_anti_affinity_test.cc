// RemovePodsViolatingInterPodAntiAffinity: the Kubernetes descheduler's
// pod_antiaffinity_test.go as facts. Nodes carry region=main-region; the terms select
// foo=bar (or foo1=bar1) over the region. Limits and nodeFit rows are the evictor's.
#include <gtest/gtest.h>

#include <optional>

#include "descheduler/core/plugins/RemovePodsViolatingInterPodAntiAffinity/inter_pod_anti_affinity.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace ipa = plugins::inter_pod_anti_affinity;
using Keys = std::vector<std::string>;

json region_node(const std::string& name) { return node(name, {{"region", "main-region"}}); }

json with_labels(json p, std::map<std::string, std::string> labels) {
  for (const auto& [k, v] : labels) p["metadata"]["labels"][k] = v;
  return p;
}

json repelling(json p, const std::string& key, const std::string& value) {
  p["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array(
      {{{"labelSelector", {{"matchExpressions", json::array({{{"key", key}, {"operator", "In"}, {"values", {value}}}})}}},
        {"topologyKey", "region"}}});
  return p;
}

json with_priority(json p, int priority) {
  p["spec"]["priority"] = priority;
  return p;
}

std::vector<std::string> run(const std::vector<json>& objs, std::function<void(RecordingEvictor&)> setup = {},
                             ipa::Args args = {}) {
  Cluster c = build(objs);
  TestHandle h(c, t0());
  if (setup) setup(h.recorder());
  ipa::Plugin plugin(std::move(args));
  return run_plugin(plugin, h);
}

// p1, p3 and p4 repel foo=bar, which p2 carries.
std::vector<json> three_repelling_one() {
  return {region_node("n1"), repelling(pod("p1", "n1"), "foo", "bar"), with_labels(pod("p2", "n1"), {{"foo", "bar"}}),
          repelling(pod("p3", "n1"), "foo", "bar"), repelling(pod("p4", "n1"), "foo", "bar")};
}

TEST(RemovePodsViolatingInterPodAntiAffinity, UpstreamTable) {
  EXPECT_EQ(run(three_repelling_one()), (Keys{"default/p1", "default/p3", "default/p4"}));
  EXPECT_EQ(run(three_repelling_one(), [](RecordingEvictor& e) { e.max_per_node = 3; }),
            (Keys{"default/p1", "default/p3", "default/p4"}));
  EXPECT_EQ(run(three_repelling_one(), [](RecordingEvictor& e) { e.max_total = 1; }), Keys{"default/p1"});
  // Lowest priority first; once p7 is gone nothing repels p5 or p6 any more.
  EXPECT_EQ(run({region_node("n1"),
                 with_priority(repelling(with_labels(pod("p5", "n1"), {{"foo", "bar"}}), "foo1", "bar1"), 100),
                 with_priority(repelling(with_labels(pod("p6", "n1"), {{"foo", "bar"}}), "foo1", "bar1"), 50),
                 with_priority(repelling(with_labels(pod("p7", "n1"), {{"foo1", "bar1"}}), "foo", "bar"), 0)}),
            Keys{"default/p7"});
  // The pod that conflicts with a critical pod goes; the critical pod (not evictable) stays.
  EXPECT_EQ(run({region_node("n1"), repelling(pod("p1", "n1"), "foo", "bar"),
                 with_labels(pod("non-evict", "n1", {.priority = 2000000000}), {{"foo", "bar"}})},
                [](RecordingEvictor& e) {
                  e.max_per_node = 1;
                  e.blocked = {"default/non-evict"};
                }),
            Keys{"default/p1"});
  // Terminating pods stay (the evictor's filter), and select nothing.
  json p9 = repelling(pod("p9", "n1"), "foo", "bar"), p10 = repelling(pod("p10", "n1"), "foo", "bar");
  p9["metadata"]["deletionTimestamp"] = p10["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z";
  EXPECT_EQ(run({region_node("n1"), p9, p10}), Keys{});
  // The repelled pod on another node of the same region counts.
  EXPECT_EQ(run({region_node("n1"), region_node("n5"), repelling(pod("p1", "n1"), "foo", "bar"),
                 with_labels(pod("p11", "n5"), {{"foo", "bar"}})}),
            Keys{"default/p1"});
}

// TestPodAntiAffinity row by row with upstream's own objects: nodes of 2000m, 3000 bytes
// and 10 pods (n1 in main-region), pods of 100m owned by a Pod ("non-evict" and p8 bare),
// through the DefaultEvictor with the row's limits and nodeFit.
struct UpstreamRow {
  const char* description;
  std::vector<json> nodes, pods;
  size_t expected;
  bool node_fit = false;
  std::optional<int> per_node = std::nullopt, per_namespace = std::nullopt, total = std::nullopt;
};

json up_node(const std::string& name, std::map<std::string, std::string> labels = {}, const std::string& cpu = "2000m",
             const std::string& memory = "3000", const std::string& pods = "10") {
  return node(name, std::move(labels), cpu, memory, pods);
}
json up_pod(const std::string& name, const std::string& node_name = "n1", bool owned = true) {
  return pod(name, node_name, {.cpu = "100m", .memory = "0", .owner_kind = owned ? "Pod" : ""});
}
json repels_foo(const std::string& name) { return repelling(up_pod(name), "foo", "bar"); }
json p2() { return with_labels(up_pod("p2"), {{"foo", "bar"}}); }
json non_evict() { return with_labels(with_priority(up_pod("non-evict", "n1", false), 2000000000), {{"foo", "bar"}}); }
json p8_west() {
  json p = up_pod("p8", "n1", false);
  p["spec"]["nodeSelector"] = {{"datacenter", "west"}};
  return p;
}
json terminating(json p) {
  p["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z";
  return p;
}

size_t run_upstream(const UpstreamRow& row) {
  std::vector<json> objs = row.nodes;
  objs.insert(objs.end(), row.pods.begin(), row.pods.end());
  Cluster c = build(objs);
  EvictorHandle h(c, {}, with_limits(row.node_fit, row.per_node, row.per_namespace, row.total));
  ipa::Plugin plugin({});
  return run_plugin(plugin, h).size();
}

TEST(RemovePodsViolatingInterPodAntiAffinity, UpstreamRowsThroughTheEvictor) {
  const json n1 = up_node("n1", {{"region", "main-region"}});
  const std::vector<json> four = {repels_foo("p1"), p2(), repels_foo("p3"), repels_foo("p4")};
  auto sorted = [](const char* name, const std::string& labels_key, const std::string& repels_key, int priority) {
    const std::string other = labels_key == "foo" ? "bar" : "bar1";
    const std::string repelled = repels_key == "foo" ? "bar" : "bar1";
    return with_priority(repelling(with_labels(up_pod(name), {{labels_key, other}}), repels_key, repelled), priority);
  };
  json cordoned = up_node("n3");
  cordoned["spec"]["unschedulable"] = true;
  const std::vector<UpstreamRow> rows = {
      {"Maximum pods to evict - 0", {n1}, four, 3},
      {"Maximum pods to evict - 3", {n1}, four, 3, false, 3},
      {"Maximum pods to evict (maxPodsToEvictPerNamespace=3) - 3", {n1}, four, 3, false, std::nullopt, 3},
      {"Maximum pods to evict (maxNoOfPodsToEvictTotal)", {n1}, four, 1, false, std::nullopt, 3, 1},
      {"Evict only 1 pod after sorting", {n1},
       {sorted("p5", "foo", "foo1", 100), sorted("p6", "foo", "foo1", 50), sorted("p7", "foo1", "foo", 0)}, 1},
      {"Evicts pod that conflicts with critical pod (but does not evict critical pod)", {n1},
       {repels_foo("p1"), non_evict()}, 1, false, 1},
      {"Won't evict pods because node selectors don't match available nodes", {n1, up_node("n2", {{"datacenter", "east"}})},
       {p8_west(), non_evict()}, 0, true, 1},
      {"Won't evict pods because only other node is not schedulable", {n1, cordoned}, {p8_west(), non_evict()}, 0, true, 1},
      {"No pod to evicted since all pod terminating", {n1}, {terminating(repels_foo("p9")), terminating(repels_foo("p10"))}, 0},
      {"Won't evict pods because only other node doesn't have enough resources", {n1, up_node("n4", {}, "2m", "2", "1")},
       four, 0, true, 3},
      {"Evict pod violating anti-affinity among different node (all pods have anti-affinity)",
       {n1, up_node("n5", {{"region", "main-region"}}, "200m")},
       {repels_foo("p1"), with_labels(up_pod("p11", "n5"), {{"foo", "bar"}})}, 1},
  };
  for (const UpstreamRow& row : rows) EXPECT_EQ(run_upstream(row), row.expected) << row.description;
}

TEST(RemovePodsViolatingInterPodAntiAffinity, OtherDomainsAndOwnLabelsDoNotCount) {
  // A node without the topology key, or in another region, is no domain shared.
  EXPECT_EQ(run({region_node("n1"), node("n2", {{"region", "other"}}), repelling(pod("p1", "n1"), "foo", "bar"),
                 with_labels(pod("p2", "n2"), {{"foo", "bar"}})}),
            Keys{});
  // A pod its own term selects does not repel itself.
  EXPECT_EQ(run({region_node("n1"), repelling(with_labels(pod("p1", "n1"), {{"foo", "bar"}}), "foo", "bar")}), Keys{});
  // Two pods that repel each other: one goes, the other then stays.
  EXPECT_EQ(run({region_node("n1"), repelling(with_labels(pod("a", "n1"), {{"foo", "bar"}}), "foo", "bar"),
                 repelling(with_labels(pod("b", "n1"), {{"foo", "bar"}}), "foo", "bar")}),
            Keys{"default/a"});
}

TEST(RemovePodsViolatingInterPodAntiAffinity, NamespacesAndLabelSelector) {
  auto include_other = ipa::parse_args(ctx(), json::parse(R"({"namespaces": {"include": ["other"]}})"), "args");
  ASSERT_TRUE(include_other.ok()) << include_other.message();
  EXPECT_EQ(run(three_repelling_one(), {}, *include_other), Keys{});
  auto selected = ipa::parse_args(ctx(), json::parse(R"({"labelSelector": {"matchLabels": {"pick": "me"}}})"), "args");
  ASSERT_TRUE(selected.ok()) << selected.message();
  auto objs = three_repelling_one();
  objs[3] = with_labels(objs[3], {{"pick", "me"}});
  EXPECT_EQ(run(objs, {}, *selected), Keys{"default/p3"});
}

// Upstream's nodeFit rows, through the DefaultEvictor with nodeFit: pods of 100m CPU.
TEST(RemovePodsViolatingInterPodAntiAffinity, NodeFitKeepsPodsNoOtherNodeTakes) {
  auto small = [](json p) {
    p["spec"]["containers"][0]["resources"]["requests"] = {{"cpu", "100m"}, {"memory", "0"}};
    return p;
  };
  auto evicted = [&](json other) {
    std::vector<json> objs = {node("n1", {{"region", "main-region"}}, "2000m", "3000", "10"), std::move(other)};
    for (json p : three_repelling_one())
      if (p["kind"] == "Pod") objs.push_back(small(p));
    Cluster c = build(objs);
    framework::EvictorOptions o = with_node_fit(true);
    o.max_per_node = 3;
    EvictorHandle h(c, {}, o);
    ipa::Plugin plugin({});
    return run_plugin(plugin, h).size();
  };
  // The only other node (2m CPU, 2 bytes, 1 pod) has no room: nothing goes.
  EXPECT_EQ(evicted(node("n4", {}, "2m", "2", "1")), 0u);
  // With room there the three repelling pods go.
  EXPECT_EQ(evicted(node("n4", {}, "2000m", "3000", "10")), 3u);
  // The only other node is unschedulable.
  json cordoned = node("n3", {}, "2000m", "3000", "10");
  cordoned["spec"]["unschedulable"] = true;
  EXPECT_EQ(evicted(cordoned), 0u);
}

TEST(RemovePodsViolatingInterPodAntiAffinity, Validation) {
  EXPECT_TRUE(ipa::parse_args(ctx(), nullptr, "args").ok());
  auto both = ipa::parse_args(ctx(), json::parse(R"({"namespaces": {"include": ["a"], "exclude": ["b"]}})"), "args");
  EXPECT_FALSE(both.ok());
  auto unknown = ipa::parse_args(ctx(), json::parse(R"({"topologyKey": "x"})"), "args");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("args.topologyKey"), std::string::npos) << unknown.message();
}

}  // namespace
}  // namespace weft::descheduler::test
