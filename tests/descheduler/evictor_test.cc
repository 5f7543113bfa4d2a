// The DefaultEvictor's cycle rules as every plugin meets them: a gang named by either
// group key is kept at minMember; a pod two budgets cover is refused.
#include <gtest/gtest.h>

#include "descheduler/core/framework/default_evictor.h"
#include "descheduler/core/plan_output.h"
#include "tests/descheduler/fixtures.h"

namespace weft::descheduler::test {
namespace {

int index_of(const Cluster& c, const std::string& key) {
  for (size_t i = 0; i < c.pods.size(); ++i)
    if (c.pods[i].key() == key) return static_cast<int>(i);
  return -1;
}

int node_index(const Cluster& c, const std::string& name) { return c.node_index.at(name); }

// The evictor's ledger keeps the state: it must outlive the evictor (a default argument
// would not).
const DeschedulerState& no_state() {
  static const DeschedulerState none;
  return none;
}

std::unique_ptr<framework::DefaultEvictor> evictor(const Cluster& c, const Policy& pol, Plan& plan,
                                                   const DeschedulerState& state = no_state()) {
  auto e = framework::DefaultEvictor::create(pol.profiles[0].evictor, c, state, framework::evictor_options(pol, pol.profiles[0], t0(), Seconds(600)),
                                             plan);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.message());
  return e.ok() ? std::move(*e) : nullptr;
}

json budget(const std::string& name, const std::string& app, int allowed) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", app}}}}}}},
          {"status", {{"disruptionsAllowed", allowed}}}};
}

json labelled(json pod, const std::string& app) {
  pod["metadata"]["labels"] = {{"app", app}};
  return pod;
}

// The Eviction API refuses a pod two budgets cover however much each allows; one budget
// allows what its status says, counted over the cycle.
TEST(Evictor, BudgetsAsTheEvictionApiCountsThem) {
  std::vector<json> objs = {node("a"), node("b")};
  objs.push_back(labelled(pod("db-0", "a"), "db"));
  objs.push_back(labelled(pod("web-0", "a"), "web"));
  objs.push_back(labelled(pod("web-1", "a"), "web"));
  objs.push_back(budget("db-one", "db", 5));
  objs.push_back(budget("db-two", "db", 5));
  objs.push_back(budget("web", "web", 1));
  Cluster c = build(objs);
  Plan plan;
  auto ev = evictor(c, seed_policy(), plan);
  const int b = node_index(c, "b");
  EXPECT_EQ(ev->pre_eviction_filter(index_of(c, "default/db-0"), b), "pdb-multiple");
  EXPECT_EQ(ev->evict({index_of(c, "default/db-0"), b, "test", "Test"}), "pdb-multiple");
  EXPECT_EQ(ev->evict({index_of(c, "default/web-0"), b, "test", "Test"}), "");
  EXPECT_EQ(ev->evict({index_of(c, "default/web-1"), b, "test", "Test"}), "pdb");
  ASSERT_EQ(plan.evictions.size(), 1u);
  EXPECT_EQ(plan.evictions[0].to, "b");
  ASSERT_EQ(plan.skipped.size(), 2u);
  EXPECT_EQ(plan.skipped[0].reason, "pdb-multiple");
}

// Evict enforces the limits and evicts a pod once; a plugin learns of the limits as
// upstream's do.
TEST(Evictor, LimitsAndOneEvictionPerPod) {
  std::vector<json> objs = {node("a"), node("b"), node("c")};
  for (int i = 0; i < 3; ++i) objs.push_back(pod("p" + std::to_string(i), "a"));
  objs.push_back(pod("q0", "b"));
  Cluster c = build(objs);
  Policy pol = seed_policy();
  pol.max_per_node = 2;
  pol.max_total = 3;
  Plan plan;
  auto ev = evictor(c, pol, plan);
  const int a = node_index(c, "a"), target = node_index(c, "c");
  EXPECT_EQ(ev->evict({index_of(c, "default/p0"), target, "t", "Test"}), "");
  EXPECT_EQ(ev->evict({index_of(c, "default/p0"), target, "t", "Test"}), "evicted");
  EXPECT_TRUE(ev->evicted(index_of(c, "default/p0")));
  EXPECT_EQ(ev->evict({index_of(c, "default/p1"), target, "t", "Test"}), "");
  EXPECT_TRUE(ev->node_limit_reached(a));
  EXPECT_EQ(ev->evict({index_of(c, "default/p2"), target, "t", "Test"}), "limit-per-node");
  EXPECT_EQ(ev->total_left(), std::optional<int>(1));
  EXPECT_EQ(ev->evict({index_of(c, "default/q0"), target, "t", "Test"}), "");
  EXPECT_TRUE(ev->total_limit_reached());
  EXPECT_EQ(plan.evictions.size(), 3u);
}

// evictions_test.go TestNewPodEvictor: one pod, the three limits; the Eviction API's own
// errors, dry run and Events are the binary's (tests/descheduler/e2e_test.cc). The
// evictionFailureEventNotification flag changes nothing in the plan.
TEST(EvictorUpstream, NewPodEvictorLimits) {
  struct Row {
    const char* intent;
    int total, per_node, per_namespace;
    std::string want;
  };
  const std::vector<Row> rows = {
      {"one eviction within every limit", 1, 1, 1, ""},
      {"maxNoOfPodsToEvictTotal 0", 0, 1, 1, "limit-total"},
      {"maxNoOfPodsToEvictPerNode 0", 1, 0, 1, "limit-per-node"},
      {"maxNoOfPodsToEvictPerNamespace 0", 1, 1, 0, "limit-per-namespace"},
  };
  const Cluster c = build({node("node"), node("other"), pod("pod", "node")});
  for (bool events : {true, false})
    for (const Row& row : rows) {
      Policy pol = seed_policy();
      pol.profiles[0].evictor.node_fit = false;
      pol.eviction_failure_events = events;
      pol.max_total = row.total;
      pol.max_per_node = row.per_node;
      pol.max_per_namespace = row.per_namespace;
      Plan plan;
      auto ev = evictor(c, pol, plan);
      EXPECT_EQ(ev->evict({index_of(c, "default/pod"), -1, "t", "Test"}), row.want) << row.intent;
      EXPECT_EQ(plan.evictions.size(), row.want.empty() ? 1u : 0u) << row.intent;
      EXPECT_EQ(ev->node_limit_reached(node_index(c, "node")), row.per_node <= static_cast<int>(plan.evictions.size()))
          << row.intent;
      EXPECT_EQ(ev->total_left(), std::optional<int>(row.total - static_cast<int>(plan.evictions.size()))) << row.intent;
    }
}

// nodeFit without a named target: some other ready, schedulable node must take the pod,
// with the room this cycle's moves took counted.
TEST(Evictor, NodeFitCountsTheCyclesMoves) {
  std::vector<json> objs = {node("a"), node("b", {}, "4", "64Gi")};
  objs.push_back(pod("big-0", "a", {.cpu = "3"}));
  objs.push_back(pod("big-1", "a", {.cpu = "3"}));
  objs.push_back(pod("huge", "a", {.cpu = "8"}));
  Cluster c = build(objs);
  Policy pol = seed_policy();
  pol.profiles[0].evictor.node_fit = true;
  Plan plan;
  auto ev = evictor(c, pol, plan);
  EXPECT_EQ(ev->pre_eviction_filter(index_of(c, "default/huge")), "node-fit");
  EXPECT_EQ(ev->evict({index_of(c, "default/big-0"), -1, "t", "Test"}), "");
  // Without a named target nothing is held on b, so a second 3-core pod still fits there;
  // with b named, the first move's room counts.
  EXPECT_EQ(ev->evict({index_of(c, "default/big-1"), node_index(c, "b"), "t", "Test"}), "");
  EXPECT_EQ(ev->target_blocker(index_of(c, "default/big-0"), node_index(c, "b")), "node-fit");
}

// A fit built ahead on another thread (build_fit_ahead) is the fit built on first use:
// moves the cycle recorded before it was first asked are placed in it.
TEST(Evictor, AFitBuiltAheadCountsTheMovesRecordedBeforeItIsAsked) {
  std::vector<json> objs = {node("a"), node("b", {}, "4", "64Gi")};
  objs.push_back(pod("big-0", "a", {.cpu = "3"}));
  objs.push_back(pod("big-1", "a", {.cpu = "3"}));
  Cluster c = build(objs);
  const int big0 = index_of(c, "default/big-0"), big1 = index_of(c, "default/big-1"), b = node_index(c, "b");
  for (bool ahead : {false, true}) {
    SCOPED_TRACE(ahead ? "built ahead" : "built on first use");
    Plan plan;
    framework::CycleLedger ledger(c, no_state(), framework::LedgerOptions{.now = t0()}, plan);
    if (ahead) ledger.build_fit_ahead();
    auto ev = framework::DefaultEvictor::create(seed_policy().profiles[0].evictor, false, ledger);
    ASSERT_TRUE(ev.ok());
    EXPECT_EQ((*ev)->evict({big0, b, "t", "Test"}), "");   // without nodeFit: the fit is not asked
    const int target = c.topology_node[static_cast<size_t>(b)];
    EXPECT_EQ(ledger.fit().node_of(c.pods[static_cast<size_t>(big0)].core), target);
    EXPECT_NE(ledger.fit().reject(c.pods[static_cast<size_t>(big1)].core, target), "");
  }
}

json with_host(json node) {
  node["metadata"]["labels"]["kubernetes.io/hostname"] = node["metadata"]["name"];
  return node;
}

json with_host_port(json pod, int port) {
  pod["spec"]["containers"][0]["ports"] = json::array({{{"containerPort", 80}, {"hostPort", port}}});
  return pod;
}

// nodeFit is the scheduler's fit: a node where the pod's required anti-affinity or a host
// port another pod holds forbids it is no target, while the pod's own port, labels and
// room leave with it.
TEST(Evictor, NodeFitRefusesWhatTheSchedulersFiltersRefuse) {
  json web = labelled(pod("web", "a"), "web");
  web["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array(
      {{{"labelSelector", {{"matchLabels", {{"app", "db"}}}}}, {"topologyKey", "kubernetes.io/hostname"}}});
  std::vector<json> objs = {with_host(node("a")), with_host(node("b")), with_host(node("c")), web,
                            labelled(pod("db", "b"), "db"), with_host_port(pod("ingress", "a"), 8080),
                            with_host_port(pod("proxy", "c"), 8080)};
  Cluster c = build(objs);
  Policy pol = seed_policy();
  pol.profiles[0].evictor.node_fit = true;
  Plan plan;
  auto ev = evictor(c, pol, plan);
  const int a = node_index(c, "a"), b = node_index(c, "b"), n_c = node_index(c, "c");
  EXPECT_EQ(ev->target_blocker(index_of(c, "default/web"), b), "node-fit");
  EXPECT_EQ(ev->target_blocker(index_of(c, "default/web"), n_c), "");
  EXPECT_EQ(ev->target_blocker(index_of(c, "default/ingress"), n_c), "node-fit");
  EXPECT_EQ(ev->target_blocker(index_of(c, "default/ingress"), b), "");
  EXPECT_EQ(ev->target_blocker(index_of(c, "default/ingress"), a), "");   // its own port
  // Moves count: once ingress is planned onto b, proxy's port is taken there too.
  EXPECT_EQ(ev->evict({index_of(c, "default/ingress"), b, "t", "Test"}), "");
  EXPECT_EQ(ev->target_blocker(index_of(c, "default/proxy"), b), "node-fit");
  EXPECT_EQ(ev->target_blocker(index_of(c, "default/proxy"), a), "");
  // Without nodeFit neither rule is the evictor's.
  pol.profiles[0].evictor.node_fit = false;
  Plan plain;
  EXPECT_EQ(evictor(c, pol, plain)->target_blocker(index_of(c, "default/web"), b), "");
}

// Volcano's own key, which the scheduler reads too: the pod is one of its gang's running
// pods, and the gang is at minMember.
TEST(Evictor, GangNamedByVolcanoKeyIsKeptAtMinMember) {
  std::vector<json> objs = {node("hot"), node("cool"), node("mid")};
  objs.push_back(podgroup("train", 2));
  for (const auto& [name, where] : {std::pair{"train-0", "hot"}, std::pair{"train-1", "mid"}}) {
    json p = pod(name, where, {.cpu = "8", .owner_kind = "Job", .owner = "train"});
    p["metadata"]["annotations"] = {{"scheduling.volcano.sh/group-name", "train"}};
    objs.push_back(p);
  }
  Plan p = plan(build(objs), load({{"hot", {0.95, 0.3}}, {"cool", {0.1, 0.1}}, {"mid", {0.5, 0.5}}}), seed_policy());
  EXPECT_TRUE(p.evictions.empty()) << plan_to_json(p).dump(2);
  EXPECT_EQ(reason_of(p, "default/train-0"), "gang-min-member");
}

// A hard-topology gang stays in the scheduler's domain of its tier: here HyperNodes group
// nodes the agents did not label with a leaf, and the least loaded node is in another one.
TEST(Evictor, HardTopologyGangStaysInItsHyperNode) {
  auto hypernode = [](const std::string& name, std::vector<std::string> nodes) {
    json members = json::array();
    for (const auto& n : nodes) members.push_back({{"type", "Node"}, {"selector", {{"exactMatch", {{"name", n}}}}}});
    return json{{"apiVersion", "topology.volcano.sh/v1alpha1"},
                {"kind", "HyperNode"},
                {"metadata", {{"name", name}}},
                {"spec", {{"tier", 1}, {"members", members}}}};
  };
  std::vector<json> objs = {node("hot"), node("cool-same"), node("cool-other")};
  objs.push_back(hypernode("leaf-a", {"hot", "cool-same"}));
  objs.push_back(hypernode("leaf-b", {"cool-other"}));
  objs.push_back(podgroup("t1", 1, "default", {}, {{"mode", "hard"}, {"highestTierAllowed", 1}}));
  for (int i = 0; i < 2; ++i)
    objs.push_back(pod("t1-" + std::to_string(i), "hot", {.cpu = "4", .owner_kind = "Job", .owner = "t1", .group = "t1"}));
  Plan p = plan(build(objs), load({{"hot", {0.95, 0.3}}, {"cool-same", {0.2, 0.2}}, {"cool-other", {0.05, 0.05}}}),
                seed_policy());
  ASSERT_FALSE(p.evictions.empty()) << plan_to_json(p).dump(2);
  for (const auto& e : p.evictions) EXPECT_EQ(e.to, "cool-same") << e.pod();
}

}  // namespace
}  // namespace weft::descheduler::test
