// RemovePodsViolatingInterPodAntiAffinity: the Kubernetes descheduler's
// pod_antiaffinity_test.go as facts. Nodes carry region=main-region; the terms select
// foo=bar (or foo1=bar1) over the region. Limits and nodeFit rows are the evictor's.
#include <gtest/gtest.h>

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
