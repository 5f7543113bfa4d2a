// The pod-level contract kube-scheduler honours (scheduling gates, DRA claims, cordon
// tolerations, pod-level resources, host ports, inter-pod affinity, topology spread,
// preferred node affinity), under Volcano's default configuration (plain `predicates`
// and `nodeorder`), and inside gangs and IB fabrics. Cases follow kube-scheduler's
// documented behaviour and its plugins' table tests.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "scheduler/core/session.h"
#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler::testing {
namespace {

using nlohmann::json;

Config volcano_default(const std::string& predicate_args = "", const std::string& nodeorder_args = "") {
  std::string text =
      "actions: \"enqueue, allocate, backfill\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
      "  - name: conformance\n- plugins:\n  - name: drf\n  - name: predicates\n" +
      (predicate_args.empty() ? "" : "    arguments: {" + predicate_args + "}\n") +
      "  - name: proportion\n  - name: nodeorder\n" +
      (nodeorder_args.empty() ? "" : "    arguments: {" + nodeorder_args + "}\n");
  auto c = parse_config(text, "test.conf");
  if (!c) throw std::runtime_error(c.message());
  return *c;
}

json node(const std::string& name, int cpu, json labels = json::object()) {
  labels["kubernetes.io/hostname"] = name;
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"status", {{"allocatable", {{"cpu", std::to_string(cpu)}, {"memory", "64Gi"}}}}}};
}

json pod(const std::string& name, json labels, json spec, const std::string& ns = "default") {
  spec["containers"] = json::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}}});
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", spec}};
}

json bound(json p, const std::string& node) {
  p["spec"]["nodeName"] = node;
  p["status"] = {{"phase", "Running"}};
  return p;
}

json anti(json selector, const std::string& key, json extra = json::object()) {
  json term = {{"labelSelector", selector}, {"topologyKey", key}};
  term.update(extra);
  return {{"affinity", {{"podAntiAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {term}}}}}}};
}

json affinity(json selector, const std::string& key, json extra = json::object()) {
  json term = {{"labelSelector", selector}, {"topologyKey", key}};
  term.update(extra);
  return {{"affinity", {{"podAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {term}}}}}}};
}

std::map<std::string, int> per_node(const ScenarioRun& run, const std::string& prefix, int count) {
  std::map<std::string, int> out;
  for (int i = 0; i < count; ++i)
    if (std::string n = run.node_of("default/" + prefix + std::to_string(i)); !n.empty()) ++out[n];
  return out;
}

// ---- the repros, as scenario files ----

TEST(PodContract, RequiredAntiAffinityOnHostnameLeavesTheFourthPodPending) {
  auto run = run_scenario("anti_affinity_hostname");
  auto nodes = per_node(run, "web-", 4);
  EXPECT_EQ(nodes, (std::map<std::string, int>{{"n1", 1}, {"n2", 1}, {"n3", 1}}));
  int pending = 0;
  for (int i = 0; i < 4; ++i)
    if (run.node_of("default/web-" + std::to_string(i)).empty()) {
      ++pending;
      EXPECT_NE(run.reason_of("default/web-" + std::to_string(i)).find("3 node(s) didn't match pod anti-affinity rules"),
                std::string::npos)
          << run.reason_of("default/web-" + std::to_string(i));
    }
  EXPECT_EQ(pending, 1);
}

TEST(PodContract, RequiredAffinityFollowsTheRunningPod) {
  auto run = run_scenario("pod_affinity_to_running");
  EXPECT_EQ(run.node_of("default/near-db"), "b1");
  EXPECT_EQ(run.node_of("default/zone-of-db").rfind("b", 0), 0u) << run.node_of("default/zone-of-db");
  // The term's namespaces default to the pod's own: db in `default` is not seen from `team`.
  EXPECT_EQ(run.node_of("team/other-namespace"), "");
  EXPECT_NE(run.reason_of("team/other-namespace").find("didn't match pod affinity rules"), std::string::npos)
      << run.reason_of("team/other-namespace");
  // The first pod of a self-affine group goes anywhere; the second joins its zone.
  std::string first = run.node_of("default/cache-0"), second = run.node_of("default/cache-1");
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(first.substr(0, 1), second.substr(0, 1));
}

TEST(PodContract, SpreadWithMaxSkewOneOverZonesAndMinDomains) {
  auto run = run_scenario("spread_zones");
  std::map<char, int> zones;
  for (int i = 0; i < 6; ++i) {
    std::string n = run.node_of("default/spread-" + std::to_string(i));
    ASSERT_FALSE(n.empty()) << i << ": " << run.reason_of("default/spread-" + std::to_string(i));
    ++zones[n[0]];
  }
  EXPECT_EQ(zones, (std::map<char, int>{{'a', 2}, {'b', 2}, {'c', 2}}));
  std::map<char, int> md;
  int pending = 0;
  for (int i = 0; i < 5; ++i) {
    std::string n = run.node_of("default/md-" + std::to_string(i));
    if (n.empty()) {
      ++pending;
      EXPECT_NE(run.reason_of("default/md-" + std::to_string(i)).find("didn't match pod topology spread constraints"),
                std::string::npos);
    } else {
      ++md[n[0]];
    }
  }
  EXPECT_EQ(md, (std::map<char, int>{{'a', 1}, {'b', 1}, {'c', 1}}));
  EXPECT_EQ(pending, 2);
}

TEST(PodContract, HostPortTakenOncePerNode) {
  auto run = run_scenario("host_ports");
  auto nodes = per_node(run, "port-", 3);
  EXPECT_EQ(nodes, (std::map<std::string, int>{{"n1", 1}, {"n2", 1}}));
  for (int i = 0; i < 3; ++i) {
    const std::string name = "default/port-" + std::to_string(i);
    if (run.node_of(name).empty()) {
      EXPECT_NE(run.reason_of(name).find("didn't have free ports"), std::string::npos) << run.reason_of(name);
    }
  }
  EXPECT_NE(run.node_of("default/port-udp"), "");   // UDP 9000 does not meet TCP 9000
}

TEST(PodContract, PreferredNodeAffinityWeight100WinsOverLeastRequested) {
  auto run = run_scenario("preferred_node_affinity");
  EXPECT_EQ(run.node_of("default/likes-ssd"), "ssd");
  EXPECT_EQ(run.node_of("default/indifferent"), "plain");
}

TEST(PodContract, GangWhoseMembersRepelEachOtherTakesTheFabricWithANodeEach) {
  auto run = run_scenario("gang_repels_itself_fabric");
  std::set<std::string> nodes;
  for (int i = 0; i < 4; ++i) {
    std::string n = run.node_of("default/ring-" + std::to_string(i));
    ASSERT_EQ(n.rfind("fb-", 0), 0u) << n << " " << run.reason_of("default/ring-" + std::to_string(i));
    nodes.insert(n);
  }
  EXPECT_EQ(nodes.size(), 4u);
}

TEST(PodContract, GatedAndDraPodsAreNoCandidates) {
  auto run = run_scenario("gates_and_claims");
  EXPECT_EQ(run.node_of("default/gated"), "");
  EXPECT_NE(run.reason_of("default/gated").find("schedulingGates"), std::string::npos) << run.reason_of("default/gated");
  EXPECT_EQ(run.node_of("default/claims"), "");
  EXPECT_NE(run.reason_of("default/claims").find("dynamic resource allocation is not built"), std::string::npos)
      << run.reason_of("default/claims");
  // The gated member does not count: two candidates of a gang of three bind nothing.
  EXPECT_EQ(run.bound_in("trio"), 0);
  EXPECT_NE(run.reason_of("default/trio-0").find("only 2 pending"), std::string::npos) << run.reason_of("default/trio-0");
  EXPECT_NE(run.reason_of("default/trio-2").find("schedulingGates"), std::string::npos);
  EXPECT_EQ(run.node_of("default/tolerates-cordon"), "cordoned");
  // Pod-level spec.resources is the request: 6 cpu where the container asks 0.1, 1 cpu where it asks 6.
  EXPECT_EQ(run.node_of("default/pod-level-too-big"), "");
  EXPECT_NE(run.reason_of("default/pod-level-too-big").find("cpu"), std::string::npos)
      << run.reason_of("default/pod-level-too-big");
  EXPECT_EQ(run.node_of("default/pod-level-small"), "open") << run.reason_of("default/pod-level-small");
}

// ---- Volcano's switches ----

TEST(PodContract, PredicateSwitchesTurnFiltersOff) {
  ScenarioBuilder b;
  b.add(node("n1", 16));
  b.add(node("n2", 16));
  for (int i = 0; i < 3; ++i)
    b.add(pod("web-" + std::to_string(i), {{"app", "web"}}, anti({{"matchLabels", {{"app", "web"}}}}, "kubernetes.io/hostname")));
  EXPECT_EQ(b.run(volcano_default()).bound_in("web"), 2);
  EXPECT_EQ(b.run(volcano_default("predicate.PodAffinityEnable: false")).bound_in("web"), 3);
  EXPECT_EQ(b.run(Config::defaults()).bound_in("web"), 2);   // weft's own default runs predicates too
}

TEST(PodContract, UnbuiltPredicatesAndScoresAreRefusedByName) {
  EXPECT_THROW(volcano_default("predicate.GPUSharingEnable: true"), std::runtime_error);
  EXPECT_THROW(volcano_default("", "imagelocality.weight: 1"), std::runtime_error);
  EXPECT_NO_THROW(volcano_default("predicate.NodePortsEnable: false, predicate.PodTopologySpreadEnable: false"));
  EXPECT_NO_THROW(volcano_default("", "nodeaffinity.weight: 0, podaffinity.weight: 5, podtopologyspread.weight: 1"));
}

// ---- InterPodAffinity, from kube-scheduler's filter table ----

TEST(PodContract, ExistingPodsAntiAffinityRepelsTheNewcomer) {
  ScenarioBuilder b;
  b.add(node("n1", 16, {{"zone", "z1"}}));
  b.add(node("n2", 16, {{"zone", "z1"}}));
  b.add(node("n3", 16, {{"zone", "z2"}}));
  b.add(bound(pod("loner", {{"app", "loner"}}, anti({{"matchLabels", {{"app", "web"}}}}, "zone")), "n1"));
  b.add(pod("web", {{"app", "web"}}, json::object()));
  auto run = b.run(volcano_default());
  EXPECT_EQ(run.node_of("default/web"), "n3");
}

// The existing-pods side counts pods placed earlier in the same cycle too: the filter
// gathers its counts per pod and placement, and must see the group the loner starts.
TEST(PodContract, AntiAffinityOfAPodPlacedThisCycleRepelsTheLaterOnes) {
  ScenarioBuilder b;
  b.add(node("n1", 16, {{"zone", "z1"}}));
  b.add(node("n2", 16, {{"zone", "z1"}}));
  b.add(node("n3", 16, {{"zone", "z2"}}));
  json loner = anti({{"matchLabels", {{"app", "web"}}}}, "zone");
  loner["priority"] = 1000;   // placed first
  b.add(pod("loner", {{"app", "loner"}}, loner));
  for (const char* name : {"web-a", "web-b", "web-c"}) b.add(pod(name, {{"app", "web"}}, json::object()));
  auto run = b.run(volcano_default());
  const std::map<std::string, std::string> zone{{"n1", "z1"}, {"n2", "z1"}, {"n3", "z2"}};
  ASSERT_FALSE(run.node_of("default/loner").empty());
  for (const char* web : {"default/web-a", "default/web-b", "default/web-c"}) {
    ASSERT_FALSE(run.node_of(web).empty()) << web;
    EXPECT_NE(zone.at(run.node_of(web)), zone.at(run.node_of("default/loner"))) << web;
  }
}

TEST(PodContract, AntiAffinityPassesNodesWithoutTheTopologyLabel) {
  ScenarioBuilder b;
  b.add(node("labelled", 64, {{"zone", "z1"}}));
  b.add(node("bare", 8));
  b.add(bound(pod("db", {{"app", "db"}}, json::object()), "labelled"));
  b.add(pod("web", {{"app", "web"}}, anti({{"matchLabels", {{"app", "db"}}}}, "zone")));
  EXPECT_EQ(b.run(volcano_default()).node_of("default/web"), "bare");
}

TEST(PodContract, AffinityNeedsTheTopologyLabelOnTheNode) {
  ScenarioBuilder b;
  b.add(node("labelled", 8, {{"zone", "z1"}}));
  b.add(node("bare", 64));
  b.add(bound(pod("db", {{"app", "db"}}, json::object()), "bare"));
  // db runs on a node without `zone`: no node's zone holds it, so the pod waits.
  b.add(pod("web", {{"app", "web"}}, affinity({{"matchLabels", {{"app", "db"}}}}, "zone")));
  auto run = b.run(volcano_default());
  EXPECT_EQ(run.node_of("default/web"), "");
}

TEST(PodContract, NamespaceSelectorAndNamespacesWidenTheTerm) {
  ScenarioBuilder b;
  b.add(node("n1", 8));
  b.add(node("n2", 64));
  b.add(bound(pod("db", {{"app", "db"}}, json::object(), "data"), "n1"));
  b.add(pod("by-list", {}, affinity({{"matchLabels", {{"app", "db"}}}}, "kubernetes.io/hostname",
                                    {{"namespaces", {"data"}}})));
  b.add(pod("by-selector", {}, affinity({{"matchLabels", {{"app", "db"}}}}, "kubernetes.io/hostname",
                                        {{"namespaceSelector", json::object()}})));
  b.add(pod("by-name-label", {}, affinity({{"matchLabels", {{"app", "db"}}}}, "kubernetes.io/hostname",
                                          {{"namespaceSelector",
                                            {{"matchLabels", {{"kubernetes.io/metadata.name", "data"}}}}}})));
  auto run = b.run(volcano_default());
  EXPECT_EQ(run.node_of("default/by-list"), "n1");
  EXPECT_EQ(run.node_of("default/by-selector"), "n1");
  EXPECT_EQ(run.node_of("default/by-name-label"), "n1");
}

// namespaceSelector selects by the Namespace objects' own labels (kube-scheduler reads
// them from its namespace lister); a namespace without an object still carries its name label.
TEST(PodContract, NamespaceSelectorMatchesTheNamespaceObjectsLabels) {
  ScenarioBuilder b;
  b.add(node("n1", 64));   // the emptier node: where web would go but for its anti-affinity
  b.add(node("n2", 8));
  for (auto [ns, tier] : {std::pair{"gold-a", "gold"}, std::pair{"bronze", "bronze"}})
    b.add(json{{"apiVersion", "v1"}, {"kind", "Namespace"},
               {"metadata", {{"name", ns}, {"labels", {{"tier", tier}, {"kubernetes.io/metadata.name", ns}}}}}});
  b.add(bound(pod("db", {{"app", "db"}}, json::object(), "gold-a"), "n1"));
  b.add(bound(pod("cache", {{"app", "db"}}, json::object(), "bronze"), "n2"));
  // Repelled by app=db pods in gold namespaces only: n1 is out, n2 (bronze) is not.
  const json gold = {{"namespaceSelector", {{"matchLabels", {{"tier", "gold"}}}}}};
  b.add(pod("web", {}, anti({{"matchLabels", {{"app", "db"}}}}, "kubernetes.io/hostname", gold)));
  b.add(pod("near-gold", {}, affinity({{"matchLabels", {{"app", "db"}}}}, "kubernetes.io/hostname", gold)));
  auto run = b.run(volcano_default());
  EXPECT_EQ(run.node_of("default/near-gold"), "n1") << run.reason_of("default/near-gold");
  EXPECT_EQ(run.node_of("default/web"), "n2") << run.reason_of("default/web");
}

TEST(PodContract, MatchLabelKeysKeepAntiAffinityInsideOneRevision) {
  ScenarioBuilder b;
  b.add(node("n1", 16));
  b.add(node("n2", 16));
  // Two revisions repel only their own kind: with matchLabelKeys [rev] each revision
  // spreads over both nodes, so all four fit.
  for (const char* rev : {"r1", "r2"})
    for (int i = 0; i < 2; ++i)
      b.add(pod(std::string("web-") + rev + "-" + std::to_string(i), {{"app", "web"}, {"rev", rev}},
                anti({{"matchLabels", {{"app", "web"}}}}, "kubernetes.io/hostname", {{"matchLabelKeys", {"rev"}}})));
  auto run = b.run(volcano_default());
  EXPECT_EQ(run.bound_in("web"), 4);
  for (const char* rev : {"r1", "r2"})
    EXPECT_NE(run.node_of(std::string("default/web-") + rev + "-0"), run.node_of(std::string("default/web-") + rev + "-1"));
}

// ---- PodTopologySpread, from kube-scheduler's filter table ----

TEST(PodContract, SpreadCountsOnlyNodesThePodMayUseAndFailsNodesWithoutTheKey) {
  ScenarioBuilder b;
  b.add(node("a1", 16, {{"zone", "a"}, {"pool", "x"}}));
  b.add(node("b1", 16, {{"zone", "b"}, {"pool", "x"}}));
  b.add(node("c1", 16, {{"zone", "c"}, {"pool", "y"}}));   // excluded by the selector: zone c is not counted
  b.add(node("nozone", 64, {{"pool", "x"}}));
  json spread = {{"nodeSelector", {{"pool", "x"}}},
                 {"topologySpreadConstraints",
                  {{{"maxSkew", 1}, {"topologyKey", "zone"}, {"whenUnsatisfiable", "DoNotSchedule"},
                    {"labelSelector", {{"matchLabels", {{"app", "s"}}}}}}}}};
  for (int i = 0; i < 4; ++i) b.add(pod("s-" + std::to_string(i), {{"app", "s"}}, spread));
  auto run = b.run(volcano_default());
  auto nodes = per_node(run, "s-", 4);
  EXPECT_EQ(nodes, (std::map<std::string, int>{{"a1", 2}, {"b1", 2}}));
}

TEST(PodContract, ScheduleAnywaySpreadScoresTheEmptierZone) {
  ScenarioBuilder b;
  b.add(node("a1", 64, {{"zone", "a"}}));
  b.add(node("b1", 16, {{"zone", "b"}}));
  b.add(bound(pod("old-0", {{"app", "s"}}, json::object()), "a1"));
  b.add(bound(pod("old-1", {{"app", "s"}}, json::object()), "a1"));
  b.add(pod("new", {{"app", "s"}},
            {{"topologySpreadConstraints",
              {{{"maxSkew", 1}, {"topologyKey", "zone"}, {"whenUnsatisfiable", "ScheduleAnyway"},
                {"labelSelector", {{"matchLabels", {{"app", "s"}}}}}}}}}));
  EXPECT_EQ(b.run(volcano_default()).node_of("default/new"), "b1");
  EXPECT_EQ(b.run(volcano_default("", "podtopologyspread.weight: 0")).node_of("default/new"), "a1");
}

TEST(PodContract, PreferredPodAntiAffinityScoresAwayFromTheMatchingPod) {
  ScenarioBuilder b;
  b.add(node("big", 64));
  b.add(node("small", 16));
  b.add(bound(pod("noisy", {{"app", "noisy"}}, json::object()), "big"));
  json term = {{"weight", 100},
               {"podAffinityTerm",
                {{"labelSelector", {{"matchLabels", {{"app", "noisy"}}}}}, {"topologyKey", "kubernetes.io/hostname"}}}};
  b.add(pod("quiet", {}, {{"affinity", {{"podAntiAffinity", {{"preferredDuringSchedulingIgnoredDuringExecution", {term}}}}}}}));
  EXPECT_EQ(b.run(volcano_default()).node_of("default/quiet"), "small");
}

// ---- preemption ----

// The preemptor fits by resources everywhere but repels the lower-priority pods: only
// evicting one frees a node (a victim chosen by resources alone would be none), and the
// preemptor is nominated to it.
TEST(PodContract, PreemptionEvictsWhatFreesTheConstraintAndNominates) {
  SnapshotBuilder b;
  for (const char* n : {"n1", "n2"}) ASSERT_TRUE(b.add(node(n, 8)).ok());
  // A gang of one member with a spare pod on each node (gang yields only pods above minMember).
  ASSERT_TRUE(b.add({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                     {"kind", "PodGroup"},
                     {"metadata", {{"name", "low"}, {"namespace", "default"}}},
                     {"spec", {{"minMember", 1}}}})
                  .ok());
  for (const char* n : {"n1", "n2"}) {
    json low = bound(pod(std::string("low-") + n, {{"tier", "low"}}, json::object()), n);
    low["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", "low"}};
    ASSERT_TRUE(b.add(low).ok());
  }
  json high = pod("high", {}, anti({{"matchLabels", {{"tier", "low"}}}}, "kubernetes.io/hostname"));
  high["spec"]["priority"] = 100;
  ASSERT_TRUE(b.add(high).ok());
  auto config = parse_config("actions: \"enqueue, allocate, preempt\"\ntiers:\n- plugins:\n  - name: priority\n"
                             "  - name: gang\n  - name: predicates\n",
                             "test.conf");
  ASSERT_TRUE(config.ok()) << config.message();
  Decisions d = run_session(b.build(), *config);
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_TRUE(d.bindings.empty());
  ASSERT_EQ(d.nominations.count("default/high"), 1u);
  EXPECT_EQ(d.nominations.at("default/high"), d.evictions[0].node);
}

}  // namespace
}  // namespace weft::scheduler::testing
