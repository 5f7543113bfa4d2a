#include <gtest/gtest.h>

#include <random>

#include "kube/scenario.h"
#include "scheduler/core/session.h"
#include "scheduler/core/topology.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

Snapshot snapshot_of(const std::string& yaml) {
  auto objects = kube::load_objects_text(yaml, "t.yaml");
  EXPECT_TRUE(objects.ok()) << objects.message();
  SnapshotBuilder b;
  for (const auto& so : *objects) {
    auto st = b.add(so.object, so.where());
    EXPECT_TRUE(st.ok()) << st.message();
  }
  return b.build();
}

// Pods come out in key order whatever order they were added in, as std::string orders
// keys: keys that share their first 16 bytes or more, keys that are the start of others,
// keys with a NUL byte; equal keys keep their order of add. pod_slots says where each went.
// Both sizes: a big list is sorted on two threads.
TEST(SchedulerSnapshot, PodsAreSortedByKeyAsStringsOrderThem) {
  for (const size_t count : {size_t{500}, size_t{30000}}) {
    std::mt19937 random(static_cast<unsigned>(count));
    const std::string stems[] = {"a", "team-12/pod-", "kube-system/pod-with-a-long-name-", "team-12/pod",
                                 std::string("x\0y", 3), std::string("x\0", 2), "x", ""};
    SnapshotBuilder b;
    std::vector<std::string> keys;
    for (size_t i = 0; i < count; ++i) {
      std::string key = stems[random() % std::size(stems)];
      if (random() % 4 != 0) key += std::to_string(random() % (count / 3));
      keys.push_back(key);
      PodInfo p;
      p.key = key;
      p.priority = static_cast<int32_t>(i);   // its order of add
      b.add(std::move(p));
    }
    const Snapshot s = b.build();
    ASSERT_EQ(s.pods.size(), count);
    for (size_t i = 1; i < count; ++i) {
      ASSERT_LE(s.pods[i - 1].key, s.pods[i].key) << i;
      if (s.pods[i - 1].key == s.pods[i].key) {
        EXPECT_LT(s.pods[i - 1].priority, s.pods[i].priority) << i;
      }
    }
    for (size_t i = 0; i < count; ++i) {
      const PodInfo& landed = s.pods[b.pod_slots()[i]];
      ASSERT_EQ(landed.key, keys[i]) << i;
      ASSERT_EQ(landed.priority, static_cast<int32_t>(i)) << i;
    }
  }
}

TEST(SchedulerSnapshot, ErrorsNameObjectAndField) {
  auto objects = kube::load_objects_text(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}
)", "s.yaml");
  ASSERT_TRUE(objects.ok());
  SnapshotBuilder b;
  auto st = b.add((*objects)[0].object, (*objects)[0].where());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("s.yaml: document 1 (Pod ns/p): spec.containers[0].resources.requests"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("'lots'"), std::string::npos) << st.message();
}

// Records decoded through DecodePools share texts and the constraints of pods with the same
// template, and read exactly as records decoded alone.
TEST(SchedulerSnapshot, PooledDecodeSharesWhatRepeatsAndReadsTheSame) {
  auto pod = [](const std::string& name, const json& tolerations) {
    return json{{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "team-a"}, {"annotations", {{"scheduling.k8s.io/group-name", "j"}}}}},
                {"spec",
                 {{"nodeName", "node-1"},
                  {"tolerations", tolerations},
                  {"nodeSelector", {{"pool", "gpu"}}},
                  {"containers", json::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}})}}}};
  };
  const json gpu = json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});
  const json other = json::array({{{"key", "dedicated"}, {"operator", "Equal"}, {"value", "x"}}});
  DecodePools pools;
  auto a = pod_info_of(pod("a", gpu), "", &pools), b = pod_info_of(pod("b", gpu), "", &pools);
  auto c = pod_info_of(pod("c", other), "", &pools), alone = pod_info_of(pod("a", gpu));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && alone.ok());
  EXPECT_EQ(a->constraints, b->constraints);   // one object for one template
  EXPECT_NE(a->constraints, c->constraints);
  EXPECT_TRUE(a->namespace_name.same_text_object(b->namespace_name));
  EXPECT_TRUE(a->node.same_text_object(c->node));
  EXPECT_TRUE(a->group.same_text_object(b->group));
  for (const PodInfo* p : {&*a, &*alone}) {
    EXPECT_EQ(p->key, "team-a/a");
    EXPECT_EQ(p->group, "team-a/j");
    EXPECT_EQ(p->phase, "Running");
    ASSERT_EQ(p->tolerations().size(), 1u);
    EXPECT_EQ(p->tolerations()[0].key, "nvidia.com/gpu");
    EXPECT_TRUE(p->affinity().matches("n", kube::Labels{{"pool", "gpu"}}));
    EXPECT_FALSE(p->affinity().matches("n", kube::Labels{{"pool", "cpu"}}));
  }
  EXPECT_EQ(a->filter_signature, alone->filter_signature);
  // A toleration that does not decode is an error every time, never a pooled answer.
  const json bad = json::array({{{"key", "k"}, {"operator", "Sometimes"}}});
  EXPECT_FALSE(pod_info_of(pod("d", bad), "", &pools).ok());
  EXPECT_FALSE(pod_info_of(pod("e", bad), "", &pools).ok());
  // What no record holds any more goes at the sweep; what records hold stays shared.
  auto kept = a->constraints;
  c = pod_info_of(pod("a", gpu));
  pools.sweep();
  auto again = pod_info_of(pod("f", gpu), "", &pools);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->constraints, kept);
  PodInfo bare;   // a record made in code, without constraints
  EXPECT_TRUE(bare.tolerations().empty());
  EXPECT_TRUE(bare.affinity().empty());
}

// A field of the wrong type anywhere in an object is an error naming the object (and the
// field where the decoder checks it), never an exception.
TEST(SchedulerSnapshot, FieldsOfTheWrongTypeAreErrorsNotCrashes) {
  auto add = [](const std::string& yaml) {
    auto objects = kube::load_objects_text(yaml, "s.yaml");
    EXPECT_TRUE(objects.ok()) << objects.message();
    SnapshotBuilder b;
    return b.add((*objects)[0].object, (*objects)[0].where());
  };
  const std::string pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n";
  auto st = add(pod + "  tolerations: [{key: 5, operator: Exists}]\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("s.yaml: document 1 (Pod ns/p): spec.tolerations[0].key: 5 is not a string"), std::string::npos)
      << st.message();
  st = add(pod + "  tolerations: [{key: a, operator: [Exists]}]\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("spec.tolerations[0].operator"), std::string::npos) << st.message();
  st = add(pod + "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                 "[{matchExpressions: [{key: k, operator: {In: 1}}]}]}}}\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("matchExpressions[0].operator"), std::string::npos) << st.message();
  st = add("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {taints: [{key: k, effect: 7}]}\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("spec.taints[0].effect: 7 is not a string"), std::string::npos) << st.message();
  // A node whose conditions are of the wrong shape: not Ready, not an exception.
  st = add("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {conditions: [{type: [Ready], status: 1}]}\n");
  EXPECT_TRUE(st.ok()) << st.message();
}

// Volcano's Queue.spec.reclaimable is a bool: anything else is refused, not read as true.
TEST(SchedulerSnapshot, QueueReclaimableThatIsNotABooleanIsAnError) {
  auto objects = kube::load_objects_text(R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
spec: {weight: 1, reclaimable: "no"}
)", "q.yaml");
  ASSERT_TRUE(objects.ok());
  SnapshotBuilder b;
  auto st = b.add((*objects)[0].object, (*objects)[0].where());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("spec.reclaimable"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("\"no\" is not true or false"), std::string::npos) << st.message();
}

TEST(SchedulerSnapshot, HyperNodesResolveNestedMembers) {
  Snapshot s = snapshot_of(R"(
apiVersion: v1
kind: Node
metadata: {name: a1, labels: {rack: a}}
---
apiVersion: v1
kind: Node
metadata: {name: a2, labels: {rack: a}}
---
apiVersion: v1
kind: Node
metadata: {name: b1}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: rack-a}
spec: {tier: 1, members: [{type: Node, selector: {labelMatch: {matchLabels: {rack: a}}}}]}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: rack-b}
spec: {tier: 1, members: [{type: Node, selector: {exactMatch: {name: b1}}}]}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: top}
spec: {tier: 2, members: [{type: HyperNode, selector: {regexMatch: {pattern: "^rack-"}}}]}
)");
  Topology t = build_topology(s);
  ASSERT_EQ(t.domains.size(), 3u);
  EXPECT_EQ(t.domains[0].name, "rack-a");
  EXPECT_EQ(t.domains[0].nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(t.domains[2].name, "top");
  EXPECT_EQ(t.domains[2].nodes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(t.domains[0].parent, 2);
  EXPECT_EQ(t.max_tier, 2);
}

TEST(SchedulerSnapshot, DerivedTopologyFromAgentLabels) {
  Snapshot s = snapshot_of(R"(
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {weft.dev/ib-fabric: f, weft.dev/ib-spine: "0x01", weft.dev/ib-leaf: "0x10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {weft.dev/ib-fabric: f, weft.dev/ib-spine: "0x01", weft.dev/ib-leaf: "0x11"}}
---
apiVersion: v1
kind: Node
metadata: {name: n3}
)");
  Topology t = build_topology(s);
  EXPECT_TRUE(t.derived);
  ASSERT_EQ(t.domains.size(), 4u);   // two leaves, one spine, one fabric
  EXPECT_EQ(t.domains[0].name, "leaf-0x10");
  EXPECT_EQ(t.domains[2].name, "spine-0x01");
  EXPECT_EQ(t.domains[3].name, "fabric-f");
  EXPECT_EQ(t.domains[3].nodes.size(), 2u);
  EXPECT_TRUE(t.node_domains[2].empty());
  json objs = hypernode_objects(t);
  EXPECT_EQ(objs["items"][3]["spec"]["members"].size(), 1u);
  EXPECT_EQ(objs["items"][0]["spec"]["members"][0]["selector"]["labelMatch"]["matchLabels"]["weft.dev/ib-leaf"], "0x10");
}

// The agents' load report is data, not input the user wrote: one that is not as expected
// (wrong types, missing fields, not JSON) is no report, never an error or a crash.
TEST(SchedulerSnapshot, MalformedLoadReportsAreIgnored) {
  const char* reports[] = {R"({"cpu":"0.9","memory":0.1,"at":"2026-01-01T00:00:00Z"})",
                           R"({"memory":0.1,"at":"2026-01-01T00:00:00Z"})", R"({"cpu":-1,"memory":0.1})", "busy",
                           R"([0.5, 0.5])"};
  for (const char* r : reports) {
    nlohmann::json node = {{"apiVersion", "v1"},
                           {"kind", "Node"},
                           {"metadata", {{"name", "n"}, {"annotations", {{"weft.dev/load", r}}}}},
                           {"status", {{"allocatable", {{"cpu", "4"}}}}}};
    SnapshotBuilder b;
    ASSERT_TRUE(b.add(node, "t").ok()) << r;
    Snapshot s = b.build();
    ASSERT_EQ(s.nodes.size(), 1u);
    EXPECT_FALSE(s.nodes[0].load.has_value()) << r;
  }
}

TEST(SchedulerSession, StatusWrittenOnlyOnChange) {
  const std::string base = R"(
apiVersion: v1
kind: Node
metadata: {name: n}
status: {allocatable: {cpu: "4", memory: 4Gi}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: g, namespace: d}
spec: {minMember: 1}
)";
  Snapshot s = snapshot_of(base + R"(
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: d, annotations: {scheduling.k8s.io/group-name: g}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)");
  Decisions d = run_session(s, Config::defaults());
  ASSERT_EQ(d.bindings.size(), 1u);
  ASSERT_EQ(d.status_writes.size(), 1u);
  EXPECT_EQ(d.status_writes[0].status["phase"], "Running");
  // The next snapshot has the pod bound and the status written: nothing to do.
  Snapshot s2 = snapshot_of(base + R"(
status: {phase: Running, running: 1, succeeded: 0, failed: 0, conditions: []}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: d, annotations: {scheduling.k8s.io/group-name: g}}
spec: {nodeName: n, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)");
  Decisions d2 = run_session(s2, Config::defaults());
  EXPECT_TRUE(d2.bindings.empty());
  EXPECT_TRUE(d2.status_writes.empty());
}

}  // namespace
}  // namespace weft::scheduler
