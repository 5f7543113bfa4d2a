// A Node decoded straight from its text (the run cache's path) is the Node decoded from its
// tree: the same NodeInfo for every node of the scenario suite and for nodes shaped as a
// real API server writes them, and the same inputs refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "kube/scenario.h"
#include "scheduler/core/node_fields.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

std::string describe(const NodeInfo& n) {
  json labels = json::array(), taints = json::array();
  for (const auto& [k, v] : n.labels) labels.push_back({std::string(k), std::string(v)});
  for (const auto& t : n.taints) taints.push_back({t.key, t.value, t.effect});
  return json{{"name", n.name},
              {"labels", labels},
              {"allocatable", kube::to_json(n.allocatable)},
              {"taints", taints},
              {"ready", n.ready},
              {"unschedulable", n.unschedulable},
              {"load", n.load ? json{n.load->cpu, n.load->memory, n.load->source,
                                     n.load->cpu_at.time_since_epoch().count(),
                                     n.load->memory_at.time_since_epoch().count()}
                              : json()},
              {"load_error", n.load_error}}
      .dump();
}

void expect_same(const json& node, const std::string& text) {
  auto tree = node_fields_of(node);
  auto raw = node_fields_of_text(text);
  ASSERT_EQ(tree.ok(), raw.ok()) << (tree ? raw.message() : tree.message()) << "\n" << text;
  if (!tree) return;
  EXPECT_EQ(tree->uid, raw->uid);
  EXPECT_EQ(tree->resource_version, raw->resource_version);
  EXPECT_EQ(tree->kind, raw->kind);
  EXPECT_EQ(tree->arrival, raw->arrival);
  auto a = node_info_from(std::move(*tree), "Node x");
  auto b = node_info_from(std::move(*raw), "Node x");
  ASSERT_EQ(a.ok(), b.ok()) << (a ? b.message() : a.message()) << "\n" << text;
  if (!a) {
    EXPECT_EQ(a.message(), b.message());
    return;
  }
  EXPECT_EQ(describe(*a), describe(*b)) << text;
}

TEST(SchedulerNodeFields, TextAndTreeGiveTheSameNodeForEveryScenarioNode) {
  size_t nodes = 0;
  for (const char* dir : {"/tests/scheduler/scenarios", "/tests/scheduler-run/scenarios"}) {
    for (const auto& entry : std::filesystem::directory_iterator(std::string(WEFT_SOURCE_DIR) + dir)) {
      if (entry.path().extension() != ".yaml") continue;
      auto objects = kube::load_objects_file(entry.path().string());
      ASSERT_TRUE(objects) << objects.message();
      for (const auto& o : *objects) {
        if (o.object.value("kind", "") != "Node") continue;
        ++nodes;
        SCOPED_TRACE(o.where());
        expect_same(o.object, o.object.dump());
        expect_same(o.object, o.object.dump(1));
      }
    }
  }
  EXPECT_GT(nodes, 50u);
}

TEST(SchedulerNodeFields, TextReadsAnApiServersNodeAsTheTreeDoes) {
  const json node = json::parse(R"({"kind":"Node","apiVersion":"v1",
    "metadata":{"name":"gpu-7","uid":"u","resourceVersion":"9","creationTimestamp":"2026-11-25T08:00:00Z",
      "labels":{"weft.dev/ib-cluster":"a","kubernetes.io/hostname":"gpu-7","weft.dev/leaf":"l1","nvidia.com/gpu.count":"8"},
      "annotations":{"node.alpha.kubernetes.io/ttl":"0","weft.dev/load":"not a report"},
      "managedFields":[{"manager":"kubelet","fieldsV1":{"f:status":{}}}]},
    "spec":{"podCIDR":"10.0.0.0/24","taints":[{"key":"nvidia.com/gpu","effect":"NoSchedule"}],"unschedulable":true},
    "status":{"capacity":{"cpu":"192","memory":"2Ti","nvidia.com/gpu":"8","pods":"110"},
      "allocatable":{"cpu":"190","memory":"2047Gi","nvidia.com/gpu":"8","pods":"110"},
      "conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True","reason":"KubeletReady"}],
      "images":[{"names":["registry/x@sha256:0"],"sizeBytes":1}],"nodeInfo":{"kubeletVersion":"v1.31.0"}}})");
  expect_same(node, node.dump());
  auto n = node_info_of_text(node.dump());
  ASSERT_TRUE(n.ok()) << n.message();
  EXPECT_EQ(n->allocatable.at("cpu"), 190000);
  EXPECT_EQ(n->labels.size(), 4u);
  EXPECT_EQ(n->taints.size(), 1u);
  EXPECT_TRUE(n->ready);
  EXPECT_TRUE(n->unschedulable);
  EXPECT_FALSE(n->load.has_value());
  EXPECT_FALSE(n->load_error.empty());   // a report that does not decode is kept as the reason
}

TEST(SchedulerNodeFields, DuplicatesOddShapesAndBadQuantitiesAsTheTreeReadsThem) {
  for (const std::string text : {
           R"({"metadata":{"name":"a","labels":{"b":"1","a":"2","b":"3","n":5,"o":{"x":[1, 2]}}}})",
           R"({"metadata":{"name":"a"},"metadata":{"uid":"u"}})",
           R"({"metadata":{"name":7}})",
           R"({"metadata":5,"spec":[],"status":"x"})",
           R"({"metadata":{"name":"a","annotations":{"weft.dev/load":5}}})",
           R"({"metadata":{"name":"a"},"spec":{"unschedulable":"true","taints":null}})",
           R"({"metadata":{"name":"a"},"spec":{"taints":{}}})",
           R"({"metadata":{"name":"a"},"spec":{"taints":[{"key":1}]}})",
           R"({"metadata":{"name":"a"},"status":{"allocatable":{},"capacity":{"cpu":"4"}}})",
           R"({"metadata":{"name":"a"},"status":{"allocatable":{ },"capacity":{"cpu":"lots"}}})",
           R"({"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"lots"},"capacity":{"cpu":"4"}}})",
           R"({"metadata":{"name":"a"},"status":{"allocatable":5,"capacity":{"cpu":2.5}}})",
           R"({"metadata":{"name":"a"},"status":{"capacity":[]}})",
           R"({"metadata":{"name":"e"},"status":{"allocatable":{"y":"","":""}}})",   // fuzz: first bad in name order
           R"({"metadata":{"name":"e"},"status":{"allocatable":{"cpu":"x","cpu":"1"}}})",
           R"({"metadata":{"name":"a"},"status":{"conditions":[]}})",
           R"({"metadata":{"name":"a"},"status":{"conditions":[5,{"type":"Ready","status":"False"},{"type":"Ready","status":"True"}]}})",
           R"({"metadata":{"name":"a"},"status":{"conditions":[{"type":["Ready"]}],"conditions":{}}})",
           R"({"metadata":{"name":"a"},"status":{"conditions":[{"type":"Ready","status":1}]}})",
           R"([1])",
           R"({"kind":"Node","metadata":{"name":"a","annotations":{"weft.dev/arrival-cycle":"2"}},"kind":5})",
           R"({"kind":"Pod","metadata":{"name":"a","annotations":{"weft.dev/arrival-cycle":2}}})",
           R"({"metadata":{"name":"a","annotations":{"weft.dev/arrival-cycle":"1","weft.dev/arrival-cycle":"0"}}})",
       }) {
    SCOPED_TRACE(text);
    expect_same(json::parse(text), text);
  }
}

}  // namespace
}  // namespace weft::scheduler
