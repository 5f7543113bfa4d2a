// RemoveDuplicates: the Kubernetes descheduler's removeduplicates_test.go as facts.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/RemoveDuplicates/remove_duplicates.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

namespace rd = plugins::remove_duplicates;

// A pod of ReplicaSet `rs` (namespace ns) with the given container images.
json replica(const std::string& name, const std::string& node_name, const std::string& rs = "rs",
             const std::string& ns = "default", std::vector<std::string> images = {"x"}) {
  json p = pod(name, node_name, {.ns = ns, .owner = rs});
  p["spec"]["containers"] = json::array();
  for (size_t i = 0; i < images.size(); ++i)
    p["spec"]["containers"].push_back({{"name", "c" + std::to_string(i)}, {"image", images[i]}});
  return p;
}

size_t evictions(std::vector<json> objs, const rd::Args& a = {}, std::function<void(RecordingEvictor&)> setup = {}) {
  Cluster c = build(objs);
  TestHandle h(c, t0());
  if (setup) setup(h.recorder());
  rd::Plugin plugin(a);
  return run_plugin(plugin, h).size();
}

TEST(RemoveDuplicates, OnOneNode) {
  std::vector<json> three = {node("n1"), node("n2"), replica("p1", "n1", "rs", "dev"), replica("p2", "n1", "rs", "dev"),
                             replica("p3", "n1", "rs", "dev")};
  EXPECT_EQ(evictions(three), 1u);   // 3 over 2 nodes: at most 2 per node
  rd::Args excluded;
  excluded.exclude_owner_kinds = {"ReplicaSet"};
  EXPECT_EQ(evictions(three, excluded), 0u);
  // Same ReplicaSet name in two namespaces: two owners, each spread on its own.
  std::vector<json> two_ns = {node("n1"), node("n2")};
  for (const char* ns : {"dev", "test"})
    for (int i = 1; i <= 3; ++i) two_ns.push_back(replica(ns + std::string("-p") + std::to_string(i), "n1", "rs", ns));
  EXPECT_EQ(evictions(two_ns), 2u);
}

TEST(RemoveDuplicates, EvictorKeepsWhatItKeeps) {
  std::vector<json> objs = {node("n1"), node("n2"), replica("p1", "n1"), replica("p2", "n1"), replica("p3", "n1")};
  // Pods the evictor's Filter refuses are not counted (a DaemonSet's, local storage, mirror, critical).
  EXPECT_EQ(evictions(objs, {}, [](RecordingEvictor& e) { e.blocked = {"default/p2", "default/p3"}; }), 0u);
}

TEST(RemoveDuplicates, ImagesMustAllMatch) {
  // Same owner, different images: not duplicates.
  EXPECT_EQ(evictions({node("n1"), node("n2"), replica("p1", "n1", "rs", "default", {"a"}),
                       replica("p2", "n1", "rs", "default", {"b"})}),
            0u);
  // Several containers: a pod does not match itself, two equal pods do.
  EXPECT_EQ(evictions({node("n1"), node("n2"), replica("p1", "n1", "rs", "default", {"a", "b"})}), 0u);
  EXPECT_EQ(evictions({node("n1"), node("n2"), replica("p1", "n1", "rs", "default", {"a", "b"}),
                       replica("p2", "n1", "rs", "default", {"a", "c"})}),
            0u);
}

std::vector<json> spread(std::vector<int> per_node, const std::string& rs = "rs", const std::string& prefix = "p") {
  std::vector<json> out;
  int k = 0;
  for (size_t n = 0; n < per_node.size(); ++n)
    for (int i = 0; i < per_node[n]; ++i)
      out.push_back(replica(prefix + std::to_string(++k), "n" + std::to_string(n + 1), rs));
  return out;
}

std::vector<json> with_nodes(int count, std::vector<json> pods) {
  std::vector<json> out;
  for (int i = 1; i <= count; ++i) out.push_back(node("n" + std::to_string(i)));
  out.insert(out.end(), pods.begin(), pods.end());
  return out;
}

TEST(RemoveDuplicates, Uniformly) {
  EXPECT_EQ(evictions(with_nodes(3, spread({5, 3, 1}))), 2u);   // (5,3,1) -> (3,3,3)
  // Two of three nodes given: the third's pod is not seen; (5,3) -> (4,4).
  EXPECT_EQ(evictions(with_nodes(2, spread({5, 3}))), 1u);
  // Two ReplicaSets spread independently.
  std::vector<json> two = spread({5, 3, 1}, "rs1", "a");
  for (auto& p : spread({1, 3, 5}, "rs2", "b")) two.push_back(p);
  EXPECT_EQ(evictions(with_nodes(3, two)), 4u);
  EXPECT_EQ(evictions(with_nodes(3, spread({2}))), 1u);   // (2,0,0) -> (1,1,0)
  EXPECT_EQ(evictions(with_nodes(3, spread({1}))), 0u);
  // Only p1 and p4 (image foo) are duplicates of each other.
  EXPECT_EQ(evictions(with_nodes(3, {replica("p1", "n1", "rs", "default", {"foo"}), replica("p2", "n1", "rs", "default", {"bar"}),
                                     replica("p3", "n1", "rs", "default", {"baz"}), replica("p4", "n1", "rs", "default", {"foo"})})),
            1u);
}

// Three workers and three masters; (5,3,1) on the workers goes to (3,3,3) when the
// masters cannot take the pods, whatever keeps them off.
std::vector<json> workers_and_masters(const std::function<void(json&)>& master, const std::function<void(json&)>& worker,
                                      const std::function<void(json&, int)>& each_pod) {
  std::vector<json> out;
  for (int i = 1; i <= 3; ++i) {
    out.push_back(node("worker" + std::to_string(i)));
    worker(out.back());
  }
  for (int i = 1; i <= 3; ++i) {
    out.push_back(node("master" + std::to_string(i)));
    master(out.back());
  }
  int k = 0;
  for (auto [n, count] : std::vector<std::pair<int, int>>{{1, 5}, {2, 3}, {3, 1}})
    for (int i = 0; i < count; ++i) {
      ++k;
      out.push_back(replica("p" + std::to_string(k), "worker" + std::to_string(n)));
      each_pod(out.back(), k);
    }
  return out;
}

TEST(RemoveDuplicates, FeasibleNodesRespectTaintsAndSelectors) {
  auto nothing = [](json&) {};
  // Masters tainted NoSchedule; pods tolerate other taints (k1 or k2).
  EXPECT_EQ(evictions(workers_and_masters(
                [](json& n) { n["spec"]["taints"] = json::array({{{"key", "node-role.kubernetes.io/master"}, {"effect", "NoSchedule"}}}); },
                nothing,
                [](json& p, int k) {
                  std::string key = k % 2 ? "k1" : "k2";
                  p["spec"]["tolerations"] = json::array({{{"key", key}, {"value", "v"}, {"effect", "NoSchedule"}}});
                })),
            2u);
  // Pods require (node affinity) not to be on a master.
  EXPECT_EQ(evictions(workers_and_masters(
                [](json& n) { n["metadata"]["labels"]["node-role.kubernetes.io/master"] = ""; }, nothing,
                [](json& p, int) {
                  p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
                      {"nodeSelectorTerms", json::array({{{"matchExpressions",
                                                           json::array({{{"key", "node-role.kubernetes.io/master"},
                                                                         {"operator", "DoesNotExist"}}})}}})}};
                })),
            2u);
  // Pods select workers by label.
  auto select_workers = [](json& p, int) { p["spec"]["nodeSelector"] = {{"node-role.kubernetes.io/worker", "k"}}; };
  EXPECT_EQ(evictions(workers_and_masters(nothing, [](json& n) { n["metadata"]["labels"]["node-role.kubernetes.io/worker"] = "k"; },
                                          select_workers)),
            2u);
  // ... and no node carries the label: no feasible node, nothing moves.
  EXPECT_EQ(evictions(workers_and_masters(nothing, nothing, select_workers)), 0u);
}

// The rows run with DefaultEvictorArgs{NodeFit: true}: three duplicates on n1 and one other
// node; the evictor lets a duplicate go only where the scheduler takes it elsewhere.
size_t evictions_with_node_fit(const json& other, std::vector<json> extra = {},
                               const std::map<std::string, std::string>& selector = {}) {
  std::vector<json> objs = {node("n1", {}, "2000m", "3000", "10"), other};
  for (int i = 1; i <= 3; ++i) {
    json p = pod("p" + std::to_string(i), "n1", {.ns = "dev", .cpu = "100m", .memory = "0", .owner = "rs", .node_selector = selector});
    objs.push_back(p);
  }
  for (auto& e : extra) objs.push_back(e);
  Cluster c = build(objs);
  EvictorHandle h(c, {}, with_node_fit(true));
  rd::Plugin plugin({});
  return run_plugin(plugin, h).size();
}

TEST(RemoveDuplicates, NodeFitKeepsDuplicatesNoOtherNodeTakes) {
  json tainted = node("n3", {}, "2000m", "3000", "10");
  tainted["spec"]["taints"] = json::array({{{"key", "hardware"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  EXPECT_EQ(evictions_with_node_fit(tainted), 0u);   // only node available has a taint
  // All with nodeSelector datacenter=west; the only other node is east.
  EXPECT_EQ(evictions_with_node_fit(node("n4", {{"datacenter", "east"}}, "2000m", "3000", "10"), {}, {{"datacenter", "west"}}),
            0u);
  json cordoned = node("n5", {}, "2000m", "3000", "10");
  cordoned["spec"]["unschedulable"] = true;
  EXPECT_EQ(evictions_with_node_fit(cordoned), 0u);   // only node available is not schedulable
  const json small = node("n6", {}, "200m", "200", "10");
  EXPECT_EQ(evictions_with_node_fit(small, {pod("CPU-eater", "n6", {.ns = "test", .cpu = "150m", .memory = "150"})}), 0u);
  EXPECT_EQ(evictions_with_node_fit(small, {pod("CPU-saver", "n6", {.ns = "test", .cpu = "100m", .memory = "150"})}), 1u);
}

// TestFindDuplicatePods row by row with upstream's own objects: nodes of 2000m, 3000
// bytes and 10 pods; pods of 100m on n1 with one container of no image, ReplicaSet pods
// all owned by "replicaset-1"; through the DefaultEvictor with the row's nodeFit.
namespace upstream {

json test_node(const std::string& name, const std::string& cpu = "2000m", const std::string& memory = "3000") {
  return node(name, {}, cpu, memory, "10");
}
json test_pod(const std::string& name, const std::string& ns = "default", const std::string& owner_kind = "ReplicaSet",
              const std::string& node_name = "n1", const std::string& cpu = "100m", const std::string& memory = "0") {
  json p = pod(name, node_name, {.ns = ns, .cpu = cpu, .memory = memory, .owner_kind = owner_kind, .owner = "replicaset-1"});
  p["spec"]["containers"][0].erase("image");
  return p;
}
json with_image(json p, const std::string& image) {
  p["spec"]["containers"][0]["image"] = image;
  return p;
}
json with_container(json p, const std::string& image) {
  p["spec"]["containers"].push_back({{"name", image}, {"image", image}});
  return p;
}
std::vector<json> rs_pods(const std::string& ns, std::vector<std::string> names) {
  std::vector<json> out;
  for (const auto& n : names) out.push_back(test_pod(n, ns));
  return out;
}
std::vector<json> protected_pods() {
  json local = test_pod("p5", "default", "Pod");
  local["spec"]["volumes"] = json::array({{{"name", "sample"}, {"emptyDir", json::object()}}});
  json mirror = test_pod("p6", "default", "");
  mirror["metadata"]["annotations"]["kubernetes.io/config.mirror"] = "mirror";
  json critical = test_pod("p7", "kube-system", "");
  critical["spec"]["priority"] = 2000000000;
  return {test_pod("p4", "default", "DaemonSet"), local, mirror, critical};
}

struct Row {
  std::string description;
  std::vector<json> pods, nodes;
  size_t expected;
  std::vector<std::string> exclude_kinds = {};
  bool node_fit = false;
};

size_t run(const Row& row) {
  std::vector<json> objs = row.nodes;
  objs.insert(objs.end(), row.pods.begin(), row.pods.end());
  Cluster c = build(objs);
  EvictorHandle h(c, {}, with_node_fit(row.node_fit));
  rd::Args a;
  a.exclude_owner_kinds = row.exclude_kinds;
  rd::Plugin plugin(a);
  return run_plugin(plugin, h).size();
}

}  // namespace upstream

TEST(RemoveDuplicates, UpstreamFindDuplicatePodsThroughTheEvictor) {
  using namespace upstream;
  const std::vector<json> two = {test_node("n1"), test_node("n2")};
  const auto dev = rs_pods("dev", {"p1", "p2", "p3"});
  const auto tst = rs_pods("test", {"p8", "p9", "p10"});
  auto concat = [](std::vector<std::vector<json>> parts) {
    std::vector<json> out;
    for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  };
  json gpu = test_node("n3");
  gpu["spec"]["taints"] = json::array({{{"key", "hardware"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  json east = node("n4", {{"datacenter", "east"}}, "2000m", "3000", "10");
  json cordoned = test_node("n5");
  cordoned["spec"]["unschedulable"] = true;
  std::vector<json> west;
  for (const char* n : {"p15", "NOT1", "NOT2"}) {
    json p = test_pod(n, "node-fit");
    p["spec"]["nodeSelector"] = {{"datacenter", "west"}};
    west.push_back(p);
  }
  json p11 = with_image(test_pod("p11", "different-images"), "foo");
  json p12 = with_image(test_pod("p12", "different-images"), "bar");
  json p13 = with_container(test_pod("p13", "different-images"), "foo");
  const std::vector<Row> rows = {
      {"Three pods in the `dev` Namespace, bound to same ReplicaSet. 1 should be evicted.", dev, two, 1},
      {"Three pods in the `dev` Namespace, bound to same ReplicaSet, but ReplicaSet kind is excluded. 0 should be evicted.", dev,
       two, 0, {"ReplicaSet"}},
      {"Three Pods in the `test` Namespace, bound to same ReplicaSet. 1 should be evicted.", tst, two, 1},
      {"Three Pods in the `dev` Namespace, three Pods in the `test` Namespace. Bound to ReplicaSet with same name. 4 should be "
       "evicted.",
       concat({dev, tst}), two, 2},
      {"Pods are: part of DaemonSet, with local storage, mirror pod annotation, critical pod annotation - none should be evicted.",
       protected_pods(), two, 0},
      {"Test all Pods: 4 should be evicted.", concat({dev, protected_pods(), tst}), two, 2},
      {"Pods with the same owner but different images should not be evicted", {p11, p12}, two, 0},
      {"Pods with multiple containers should not match themselves", {p13}, two, 0},
      {"Pods with matching ownerrefs and at not all matching image should not trigger an eviction", {p11, p13}, two, 0},
      {"Three pods in the `dev` Namespace, bound to same ReplicaSet. Only node available has a taint, and nodeFit set to true. 0 "
       "should be evicted.",
       dev, {test_node("n1"), gpu}, 0, {}, true},
      {"Three pods in the `node-fit` Namespace, bound to same ReplicaSet, all with a nodeSelector. Only node available has an "
       "incorrect node label, and nodeFit set to true. 0 should be evicted.",
       west, {test_node("n1"), east}, 0, {}, true},
      {"Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available is not schedulable, and nodeFit set "
       "to true. 0 should be evicted.",
       dev, {test_node("n1"), cordoned}, 0, {}, true},
      {"Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available does not have enough CPU, and "
       "nodeFit set to true. 0 should be evicted.",
       concat({dev, {test_pod("CPU-eater", "test", "", "n6", "150m", "150")}}), {test_node("n1"), test_node("n6", "200m", "200")},
       0, {}, true},
      {"Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available has enough CPU, and nodeFit set to "
       "true. 1 should be evicted.",
       concat({dev, {test_pod("CPU-saver", "test", "", "n6", "100m", "150")}}), {test_node("n1"), test_node("n6", "200m", "200")},
       1, {}, true},
  };
  for (const Row& row : rows) EXPECT_EQ(upstream::run(row), row.expected) << row.description;
}

// TestRemoveDuplicatesUniformly row by row with upstream's own objects, through the
// DefaultEvictor with its default args. A pod may name a node the row does not have.
TEST(RemoveDuplicates, UpstreamUniformlyThroughTheEvictor) {
  using upstream::test_node;
  using Setter = std::function<void(json&)>;
  auto owners = [](std::vector<std::string> names) {
    return Setter([names](json& p) {
      p["metadata"]["ownerReferences"] = json::array();
      for (const auto& n : names)
        p["metadata"]["ownerReferences"].push_back({{"apiVersion", "v1"}, {"kind", "ReplicaSet"}, {"name", n}});
    });
  };
  const Setter rs1 = owners({"replicaset-1"}), rs2 = owners({"replicaset-2"}), both = owners({"replicaset-1", "replicaset-2"});
  auto tolerating = [&](const std::string& key, const std::string& value) {
    return Setter([=](json& p) {
      rs1(p);
      p["spec"]["tolerations"] = json::array({{{"key", key}, {"value", value}, {"operator", "Equal"}, {"effect", "NoSchedule"}}});
    });
  };
  auto not_master = [&](const std::string& key) {
    return Setter([=](json& p) {
      rs1(p);
      p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] = json::array(
          {{{"matchExpressions", json::array({{{"key", "node-role.kubernetes.io/control-plane"}, {"operator", "DoesNotExist"}},
                                              {{"key", key}, {"operator", "DoesNotExist"}}})}}});
    });
  };
  auto worker_selector = [&](const std::string& value) {
    return Setter([=](json& p) {
      rs1(p);
      p["spec"]["nodeSelector"]["node-role.kubernetes.io/worker"] = value;
    });
  };
  // Pods named `first`.. on the nodes, as many on each as `counts` says, each set by the
  // setter its index picks.
  auto pods = [](int first, std::vector<std::pair<std::string, int>> counts, std::function<Setter(int)> setter) {
    std::vector<json> out;
    int k = first;
    for (const auto& [n, count] : counts)
      for (int i = 0; i < count; ++i, ++k) {
        json p = upstream::test_pod("p" + std::to_string(k), "default", "ReplicaSet", n);
        setter(k)(p);
        out.push_back(p);
      }
    return out;
  };
  auto same = [](Setter s) { return [s](int) { return s; }; };
  auto alternating = [](std::function<Setter(const std::string&, const std::string&)> make, const char* a1, const char* a2,
                        const char* b1 = "", const char* b2 = "") {
    return [=](int k) { return k % 2 == 1 ? make(a1, b1) : make(a2, b2); };
  };
  const std::vector<std::pair<std::string, int>> five_three_one = {{"n1", 5}, {"n2", 3}, {"n3", 1}};
  const std::vector<std::pair<std::string, int>> workers = {{"worker1", 5}, {"worker2", 3}, {"worker3", 1}};
  auto nodes = [&](std::vector<std::string> names, Setter set = {}) {
    std::vector<json> out;
    for (const auto& n : names) {
      json x = test_node(n);
      if (set && n.rfind("master", 0) == 0) set(x);
      out.push_back(x);
    }
    return out;
  };
  const std::vector<std::string> six = {"worker1", "worker2", "worker3", "master1", "master2", "master3"};
  const Setter master_taint = [](json& n) {
    n["spec"]["taints"] = json::array({{{"key", "node-role.kubernetes.io/control-plane"}, {"effect", "NoSchedule"}}});
  };
  const Setter master_label = [](json& n) { n["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] = ""; };
  std::vector<json> labelled_workers = nodes(six);
  for (int i = 0; i < 3; ++i) labelled_workers[static_cast<size_t>(i)]["metadata"]["labels"]["node-role.kubernetes.io/worker"] = "k2";
  std::vector<json> with_images;
  for (const char* image : {"foo", "bar", "baz", "foo"}) {
    json p = upstream::test_pod("p" + std::to_string(with_images.size() + 1));
    rs1(p);
    with_images.push_back(upstream::with_container(p, image));
  }
  std::vector<json> two_owners = pods(11, five_three_one, same(rs1));
  for (json& p : pods(21, {{"n1", 1}, {"n2", 3}, {"n3", 5}}, same(rs2))) two_owners.push_back(p);
  struct Row {
    const char* description;
    std::vector<json> pods, nodes;
    size_t expected;
  };
  const auto selector = [&](const std::string& v, const std::string&) { return worker_selector(v); };
  const std::vector<Row> rows = {
      {"Evict pods uniformly", pods(1, five_three_one, same(rs1)), nodes({"n1", "n2", "n3"}), 2},
      {"Evict pods uniformly with one node left out", pods(1, five_three_one, same(rs1)), nodes({"n1", "n2"}), 1},
      // A difference (docs/descheduler.md): upstream's row counts 4, each of the two
      // surplus pods once per owner; weft evicts a pod once.
      {"Evict pods uniformly with two replica sets", pods(11, five_three_one, same(both)), nodes({"n1", "n2", "n3"}), 2},
      {"Evict pods uniformly with two owner references", two_owners, nodes({"n1", "n2", "n3"}), 4},
      {"Evict pods with number of pods less than nodes", pods(1, {{"n1", 2}}, same(rs1)), nodes({"n1", "n2", "n3"}), 1},
      {"Evict pods with number of pods less than nodes, but ignore different pods with the same ownerref", with_images,
       nodes({"n1", "n2", "n3"}), 1},
      {"Evict pods with a single pod with three nodes", pods(1, {{"n1", 1}}, same(rs1)), nodes({"n1", "n2", "n3"}), 0},
      {"Evict pods uniformly respecting taints",
       pods(1, workers, alternating([&](const std::string& k, const std::string& v) { return tolerating(k, v); }, "k1", "k2", "v1", "v2")),
       nodes(six, master_taint), 2},
      {"Evict pods uniformly respecting RequiredDuringSchedulingIgnoredDuringExecution node affinity",
       pods(1, workers, alternating([&](const std::string& k, const std::string&) { return not_master(k); }, "k1", "k2")),
       nodes(six, master_label), 2},
      {"Evict pods uniformly respecting node selector", pods(1, workers, alternating(selector, "k1", "k2")), labelled_workers, 2},
      {"Evict pods uniformly respecting node selector with zero target nodes", pods(1, workers, alternating(selector, "k1", "k2")),
       nodes(six), 0},
  };
  for (const Row& row : rows) {
    std::vector<json> objs = row.nodes;
    objs.insert(objs.end(), row.pods.begin(), row.pods.end());
    Cluster c = build(objs);
    EvictorHandle h(c, {}, with_node_fit(false));
    rd::Plugin plugin({});
    EXPECT_EQ(run_plugin(plugin, h).size(), row.expected) << row.description;
  }
}

TEST(RemoveDuplicates, Validation) {
  auto bad = rd::parse_args(ctx(), json::parse(R"({"namespaces": {"include": ["a"], "exclude": ["b"]}})"), "args");
  EXPECT_FALSE(bad.ok());
  auto typo = rd::parse_args(ctx(), json::parse(R"({"excludeOwnerKind": ["ReplicaSet"]})"), "args");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.message().find("args.excludeOwnerKind: unknown field"), std::string::npos) << typo.message();
}

// Upstream lists the pods through the evictor's PreEvictionFilter (nodeFit), every node
// before any eviction: a pod it refuses is not counted. x2 (700m) fits on "spare"; y2
// (800m) would fit on "a" only once x2 has left, so Y has no duplicate to evict.
TEST(RemoveDuplicates, NodeFitAskedWhenListed) {
  auto sized = [](const std::string& name, const std::string& node_name, const std::string& rs, const std::string& cpu) {
    return pod(name, node_name, {.cpu = cpu, .memory = "0", .owner = rs});
  };
  Cluster c = build({node("a", {}, "1100m", "3000", "10"), node("b", {}, "1600m", "3000", "10"),
                     node("spare", {}, "700m", "3000", "10"), sized("x1", "a", "x", "300m"), sized("x2", "a", "x", "700m"),
                     sized("y1", "b", "y", "800m"), sized("y2", "b", "y", "800m")});
  EvictorHandle h(c, {}, with_node_fit(true));
  rd::Plugin plugin(rd::Args{});
  EXPECT_EQ(run_plugin(plugin, h), std::vector<std::string>{"default/x2"});
}

}  // namespace
}  // namespace weft::descheduler::test
