// The Kubernetes descheduler's LowNodeUtilization and DefaultEvictor semantics where weft
// has no safety reason to differ: thresholds (inclusive low, deviation, extended
// resources), the victim order by priority then QoS, the evict annotation, minPodAge from
// the start time, owner references, and PodDisruptionBudgets.
#include <gtest/gtest.h>

#include "descheduler/core/framework/default_evictor.h"
#include "descheduler/core/plan_output.h"
#include "tests/descheduler/fixtures.h"

namespace weft::descheduler::test {
namespace {

std::vector<std::string> evicted_pods(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& e : p.evictions) out.push_back(e.pod());
  return out;
}

// A pod's first container with these resources (requests and limits as given).
json with_resources(json p, json requests, json limits = nullptr) {
  json& res = p["spec"]["containers"][0]["resources"];
  res = json::object();
  if (!requests.is_null()) res["requests"] = std::move(requests);
  if (!limits.is_null()) res["limits"] = std::move(limits);
  return p;
}

json annotate(json o, const std::string& key, const std::string& value = "") {
  o["metadata"]["annotations"][key] = value;
  return o;
}

json pdb(const std::string& name, json selector, json spec_extra = json::object(), json status = nullptr,
         const std::string& ns = "default") {
  json o = {{"apiVersion", "policy/v1"},
            {"kind", "PodDisruptionBudget"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"spec", spec_extra}};
  if (!selector.is_null()) o["spec"]["selector"] = std::move(selector);
  if (!status.is_null()) o["status"] = std::move(status);
  return o;
}

json labelled(json p, const std::string& key, const std::string& value) {
  p["metadata"]["labels"][key] = value;
  return p;
}

TEST(UpstreamSemantics, NodeExactlyAtThresholdsIsLow) {
  Cluster c = build({node("at"), node("above")});
  Plan p = plan(c, load({{"at", {0.30, 0.30}}, {"above", {0.30, 0.301}}}), seed_policy());
  EXPECT_EQ(class_of(p, "at"), NodeClass::Low);
  EXPECT_EQ(class_of(p, "above"), NodeClass::Normal);
}

// Within one priority: BestEffort, then Burstable, then Guaranteed, whatever they use.
TEST(UpstreamSemantics, VictimsOfOnePriorityGoBestEffortBurstableGuaranteed) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(with_resources(pod("guaranteed", "hot"), {{"cpu", "4"}, {"memory", "4Gi"}}, {{"cpu", "4"}, {"memory", "4Gi"}}));
  objs.push_back(with_resources(pod("burstable", "hot"), {{"cpu", "3"}}));
  objs.push_back(with_resources(pod("besteffort", "hot"), nullptr));
  // Protected pods dilute the best-effort pod's share of the node's use (15.2 / 8 = 1.9 cores).
  for (int i = 0; i < 5; ++i)
    objs.push_back(pod("ds-" + std::to_string(i), "hot", {.cpu = "100m", .owner_kind = "DaemonSet", .owner = "ds"}));
  Plan p = plan(build(objs), load({{"hot", {0.95, 0.2}}, {"cool", {0.05, 0.05}}}), seed_policy());
  ASSERT_EQ(evicted_pods(p), (std::vector<std::string>{"default/besteffort", "default/burstable"})) << plan_to_json(p).dump();
  // Priority still comes first, and a pod without a priority before any pod with one.
  std::vector<json> objs2 = {node("hot"), node("cool")};
  objs2.push_back(with_resources(pod("low-guaranteed", "hot", {.priority = -5}), {{"cpu", "3"}, {"memory", "1Gi"}},
                                 {{"cpu", "3"}, {"memory", "1Gi"}}));
  json no_priority = with_resources(pod("no-priority", "hot"), {{"cpu", "3"}, {"memory", "1Gi"}}, {{"cpu", "3"}, {"memory", "1Gi"}});
  no_priority["spec"].erase("priority");
  objs2.push_back(no_priority);
  objs2.push_back(with_resources(pod("high-besteffort", "hot", {.priority = 5}), nullptr));
  Plan p2 = plan(build(objs2), load({{"hot", {0.99, 0.2}}, {"cool", {0.05, 0.05}}}), seed_policy());
  ASSERT_GE(p2.evictions.size(), 2u) << plan_to_json(p2).dump();
  EXPECT_EQ(p2.evictions[0].pod(), "default/no-priority");
  EXPECT_EQ(p2.evictions[1].pod(), "default/low-guaranteed");
}

TEST(UpstreamSemantics, QosFromStatusOrContainers) {
  auto qos = [](const json& p) { return pod_qos(p).value(); };
  EXPECT_EQ(qos(with_resources(pod("a", "n"), nullptr)), QosClass::BestEffort);
  EXPECT_EQ(qos(with_resources(pod("a", "n"), {{"cpu", "1"}})), QosClass::Burstable);
  // Limits only: the API defaults requests to them.
  EXPECT_EQ(qos(with_resources(pod("a", "n"), nullptr, {{"cpu", "1"}, {"memory", "1Gi"}})), QosClass::Guaranteed);
  EXPECT_EQ(qos(with_resources(pod("a", "n"), {{"cpu", "500m"}, {"memory", "1Gi"}}, {{"cpu", "1"}, {"memory", "1Gi"}})),
            QosClass::Burstable);
  json given = with_resources(pod("a", "n"), nullptr);
  given["status"]["qosClass"] = "Guaranteed";
  EXPECT_EQ(qos(given), QosClass::Guaranteed);
  given["status"]["qosClass"] = "Gold";
  EXPECT_FALSE(pod_qos(given).ok());
}

TEST(UpstreamSemantics, DeviationThresholdsAroundTheMean) {
  Policy pol = seed_policy();
  pol.profiles[0].load_aware.thresholds = {{"cpu", 10}};
  pol.profiles[0].load_aware.target_thresholds = {{"cpu", 10}};
  pol.profiles[0].load_aware.use_deviation_thresholds = true;
  std::vector<json> objs = {node("a"), node("b"), node("c"), node("d")};
  for (int i = 0; i < 4; ++i) objs.push_back(pod("w" + std::to_string(i), "d", {.cpu = "2"}));
  // Mean cpu 52.5 %: low at or below 42.5 %, high above 62.5 %.
  Plan p = plan(build(objs), load({{"a", {0.20, 0.9}}, {"b", {0.425, 0.9}}, {"c", {0.60, 0.1}}, {"d", {0.90, 0.1}}}), pol);
  EXPECT_EQ(class_of(p, "a"), NodeClass::Low);
  EXPECT_EQ(class_of(p, "b"), NodeClass::Low);
  EXPECT_EQ(class_of(p, "c"), NodeClass::Normal);
  EXPECT_EQ(class_of(p, "d"), NodeClass::High);
  // 90 % of 16 cores (14.4) down to 62.5 % (10) takes three 2-core pods.
  EXPECT_EQ(p.evictions.size(), 3u) << plan_to_json(p).dump();
}

// An extended resource in thresholds is counted from requests over allocatable.
TEST(UpstreamSemantics, ExtendedResourceThresholds) {
  auto gpu_node = [](const std::string& name) {
    json n = node(name);
    n["status"]["allocatable"]["nvidia.com/gpu"] = "8";
    return n;
  };
  std::vector<json> objs = {gpu_node("busy"), gpu_node("idle")};
  for (int i = 0; i < 3; ++i)
    objs.push_back(pod("train-" + std::to_string(i), "busy", {.cpu = "1", .extra_requests = {{"nvidia.com/gpu", "2"}}}));
  objs.push_back(pod("web", "busy", {.cpu = "1"}));
  Policy pol = seed_policy();
  pol.profiles[0].load_aware.thresholds = {{"nvidia.com/gpu", 30}};
  pol.profiles[0].load_aware.target_thresholds = {{"nvidia.com/gpu", 60}};
  Plan p = plan(build(objs), load({{"busy", {0.3, 0.3}}, {"idle", {0.3, 0.3}}}), pol);
  EXPECT_EQ(class_of(p, "busy"), NodeClass::High);   // 6 of 8 GPUs requested
  EXPECT_EQ(class_of(p, "idle"), NodeClass::Low);
  ASSERT_EQ(p.evictions.size(), 1u) << plan_to_json(p).dump();
  EXPECT_EQ(p.evictions[0].pod().rfind("default/train-", 0), 0u);
  EXPECT_NE(p.evictions[0].reason.find("nvidia.com/gpu 75.0% > 60.0%"), std::string::npos) << p.evictions[0].reason;
}

// descheduler.alpha.kubernetes.io/evict lifts every DefaultEvictor rule; not mirror pods
// (the Eviction API cannot move them) nor evictableNamespaces (the balance plugin's).
TEST(UpstreamSemantics, EvictAnnotationLiftsWhatUpstreamLifts) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(pod("ds", "hot", {.owner_kind = "DaemonSet", .owner = "ds"}));
  objs.push_back(pod("critical", "hot", {.priority = 2000000000}));
  objs.push_back(pod("important", "hot", {.priority = 20000}));
  objs.push_back(pod("db", "hot", {.pvc = true}));
  objs.push_back(pod("bare", "hot", {.owner_kind = ""}));
  objs.push_back(annotate(pod("mirror", "hot"), "kubernetes.io/config.mirror", "x"));
  objs.push_back(pod("excluded", "hot", {.ns = "kube-system"}));
  for (auto& o : objs)
    if (o["kind"] == "Pod") o = annotate(o, kEvictAnnotation, "true");
  Policy pol = seed_policy();
  pol.profiles[0].load_aware.exclude_namespaces = {"kube-system"};
  pol.profiles[0].evictor.ignore_pods_without_pdb = true;
  pol.profiles[0].evictor.min_pod_age = Seconds(3600);
  Cluster c = build(objs);
  Plan scratch;
  auto ev = framework::DefaultEvictor::create(pol.profiles[0].evictor, c, {}, framework::evictor_options(pol, pol.profiles[0], t0(), Seconds(600)),
                                              scratch);
  ASSERT_TRUE(ev.ok());
  std::map<std::string, std::string> why;
  for (size_t i = 0; i < c.pods.size(); ++i) {
    const PodInfo& p = c.pods[i];
    // evictableNamespaces is the balance plugin's filter, applied before the evictor's.
    why[p.key()] = framework::namespace_allowed(pol.profiles[0].load_aware.include_namespaces, pol.profiles[0].load_aware.exclude_namespaces, p.ns)
                       ? (*ev)->filter(static_cast<int>(i))
                       : "namespace-excluded";
  }
  for (const char* lifted : {"default/ds", "default/critical", "default/important", "default/db", "default/bare"})
    EXPECT_EQ(why[lifted], "") << lifted;
  EXPECT_EQ(why["default/mirror"], "mirror-pod");
  EXPECT_EQ(why["kube-system/excluded"], "namespace-excluded");
  // Without the annotation the same pods stay, each for its own reason.
  std::vector<json> plain = {node("hot"), node("cool")};
  plain.push_back(pod("ds", "hot", {.owner_kind = "DaemonSet", .owner = "ds"}));
  plain.push_back(pod("critical", "hot", {.priority = 2000000000}));
  plain.push_back(pod("important", "hot", {.priority = 20000}));
  pol.profiles[0].evictor.ignore_pods_without_pdb = false;
  pol.profiles[0].evictor.min_pod_age.reset();
  Plan q = plan(build(plain), load({{"hot", {0.99, 0.2}}, {"cool", {0.05, 0.05}}}), pol);
  EXPECT_EQ(reason_of(q, "default/ds"), "daemonset");
  EXPECT_EQ(reason_of(q, "default/critical"), "system-critical");
  EXPECT_EQ(reason_of(q, "default/important"), "priority-threshold");
}

TEST(UpstreamSemantics, MinPodAgeCountsFromStartTime) {
  auto aged = [](const std::string& name, const char* created, const char* started) {
    json p = pod(name, "hot");
    p["metadata"]["creationTimestamp"] = created;
    if (started) p["status"]["startTime"] = started;
    return p;
  };
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(aged("old-started-recently", "2026-11-20T00:00:00Z", "2026-11-23T09:55:00Z"));
  objs.push_back(aged("never-started", "2026-11-20T00:00:00Z", nullptr));
  objs.push_back(aged("started-long-ago", "2026-11-20T00:00:00Z", "2026-11-20T00:01:00Z"));
  Policy pol = seed_policy();
  pol.profiles[0].evictor.min_pod_age = Seconds(3600);
  Plan p = plan(build(objs), load({{"hot", {0.99, 0.2}}, {"cool", {0.05, 0.05}}}), pol);
  EXPECT_EQ(reason_of(p, "default/old-started-recently"), "min-pod-age");
  EXPECT_EQ(reason_of(p, "default/never-started"), "min-pod-age");
  EXPECT_EQ(reason_of(p, "default/started-long-ago"), "evicted");
}

TEST(UpstreamSemantics, AnyOwnerReferenceMakesAPodOwned) {
  json p = pod("owned", "hot");
  p["metadata"]["ownerReferences"][0].erase("controller");
  json ds = pod("ds-not-controller", "hot");
  ds["metadata"]["ownerReferences"] = json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "x"}, {"uid", "u1"}},
       {{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"}, {"name", "ds"}, {"uid", "u2"}}});
  Plan pl = plan(build({node("hot"), node("cool"), p, ds}), load({{"hot", {0.99, 0.2}}, {"cool", {0.05, 0.05}}}),
                 seed_policy());
  EXPECT_EQ(reason_of(pl, "default/owned"), "evicted");
  EXPECT_EQ(reason_of(pl, "default/ds-not-controller"), "daemonset");
}

TEST(UpstreamSemantics, IgnorePodsWithoutPdb) {
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(labelled(pod("covered", "hot"), "app", "web"));
  objs.push_back(labelled(pod("uncovered", "hot"), "app", "batch"));
  objs.push_back(labelled(pod("other-namespace", "hot", {.ns = "team"}), "app", "web"));
  objs.push_back(pdb("web", {{"matchLabels", {{"app", "web"}}}}, json::object(), {{"disruptionsAllowed", 5}}));
  Policy pol = seed_policy();
  pol.profiles[0].evictor.ignore_pods_without_pdb = true;
  Plan p = plan(build(objs), load({{"hot", {0.99, 0.2}}, {"cool", {0.05, 0.05}}}), pol);
  EXPECT_EQ(reason_of(p, "default/covered"), "evicted");
  EXPECT_EQ(reason_of(p, "default/uncovered"), "no-pdb");
  EXPECT_EQ(reason_of(p, "team/other-namespace"), "no-pdb");
}

// Never more evictions from one budget than it allows; a budget without status is
// computed from its spec over the pods it covers.
TEST(UpstreamSemantics, PlansStayWithinDisruptionBudgets) {
  auto hot_cluster = [](json budget, int pods = 4) {
    std::vector<json> objs = {node("hot"), node("cool-1"), node("cool-2")};
    for (int i = 0; i < pods; ++i) objs.push_back(labelled(pod("web-" + std::to_string(i), "hot", {.cpu = "3"}), "app", "web"));
    objs.push_back(std::move(budget));
    return build(objs);
  };
  LoadReport l = load({{"hot", {0.99, 0.2}}, {"cool-1", {0.05, 0.05}}, {"cool-2", {0.05, 0.05}}});
  auto count = [](const Plan& p, const std::string& reason) {
    return std::count_if(p.skipped.begin(), p.skipped.end(), [&](const PlannedSkip& s) { return s.reason == reason; });
  };
  json sel = {{"matchLabels", {{"app", "web"}}}};
  // Without a budget: 99 % of 16 cores down to 80 % takes two 3-core pods.
  Plan free = plan(hot_cluster(pdb("none", {{"matchLabels", {{"app", "none"}}}})), l, seed_policy());
  EXPECT_EQ(free.evictions.size(), 2u) << plan_to_json(free).dump();
  Plan status = plan(hot_cluster(pdb("web", sel, json::object(), {{"disruptionsAllowed", 1}})), l, seed_policy());
  EXPECT_EQ(status.evictions.size(), 1u);
  EXPECT_GE(count(status, "pdb"), 1);
  Plan exhausted = plan(hot_cluster(pdb("web", sel, json::object(), {{"disruptionsAllowed", 0}})), l, seed_policy());
  EXPECT_TRUE(exhausted.evictions.empty());
  // minAvailable 3 of 4 healthy: one; maxUnavailable 25 % of 4: one; "50%": two.
  EXPECT_EQ(plan(hot_cluster(pdb("web", sel, {{"minAvailable", 3}})), l, seed_policy()).evictions.size(), 1u);
  EXPECT_EQ(plan(hot_cluster(pdb("web", sel, {{"maxUnavailable", "25%"}})), l, seed_policy()).evictions.size(), 1u);
  EXPECT_EQ(plan(hot_cluster(pdb("web", sel, {{"maxUnavailable", "50%"}})), l, seed_policy()).evictions.size(), 2u);
  // minAvailable "80%" of 4 rounds up to 4: none.
  EXPECT_TRUE(plan(hot_cluster(pdb("web", sel, {{"minAvailable", "80%"}})), l, seed_policy()).evictions.empty());
  // A null selector covers nothing; an empty one covers the whole namespace.
  EXPECT_EQ(plan(hot_cluster(pdb("web", nullptr, {{"minAvailable", 4}})), l, seed_policy()).evictions.size(), 2u);
  EXPECT_TRUE(plan(hot_cluster(pdb("web", json::object(), {{"minAvailable", 4}})), l, seed_policy()).evictions.empty());
  // Two budgets over one pod: the Eviction API refuses it, so the plan does not count on it.
  std::vector<json> objs = {node("hot"), node("cool")};
  objs.push_back(labelled(pod("twice", "hot", {.cpu = "4"}), "app", "web"));
  objs.push_back(pdb("a", sel, json::object(), {{"disruptionsAllowed", 3}}));
  objs.push_back(pdb("b", json::object(), json::object(), {{"disruptionsAllowed", 3}}));
  EXPECT_EQ(reason_of(plan(build(objs), load({{"hot", {0.99, 0.2}}, {"cool", {0.05, 0.05}}}), seed_policy()), "default/twice"),
            "pdb-multiple");
}

TEST(UpstreamSemantics, BadPdbsAreErrorsNamingTheField) {
  ClusterBuilder b;
  auto s = b.add(pdb("web", json::object(), {{"minAvailable", "lots"}}), "pdbs.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("pdbs.yaml: PodDisruptionBudget default/web: spec.minAvailable"), std::string::npos)
      << s.message();
  EXPECT_FALSE(b.add(pdb("web", json::object(), {{"minAvailable", 1}, {"maxUnavailable", 1}}), "x").ok());
}

// Fields of the wrong type are errors naming the object, never exceptions; a refused
// object leaves the cluster as it was.
TEST(UpstreamSemantics, FieldsOfTheWrongTypeAreErrorsNotCrashes) {
  ClusterBuilder b;
  ASSERT_TRUE(b.add(node("hot"), "c.yaml").ok());
  json bad_toleration = pod("p", "hot", {.cpu = "1"});
  bad_toleration["spec"]["tolerations"] = json::array({{{"key", 5}, {"operator", "Exists"}}});
  auto s = b.add(bad_toleration, "c.yaml: document 2");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("spec.tolerations[0].key: 5 is not a string"), std::string::npos) << s.message();
  json bad_owner = pod("q", "hot", {.cpu = "1"});
  bad_owner["metadata"]["ownerReferences"] = json::array({{{"kind", json::array()}, {"name", "rs"}, {"controller", true}}});
  s = b.add(bad_owner, "c.yaml: document 3");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("c.yaml: document 3: a field has the wrong type"), std::string::npos) << s.message();
  EXPECT_TRUE(b.finish().pods.empty());
}

std::string lnu_policy(const std::string& args) {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n"
         "  - name: DefaultEvictor\n    args: {}\n  - name: LowNodeUtilization\n    args: " +
         args + "\n  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n";
}

// LowNodeUtilization as upstream: utilization from requests, no metrics needed.
TEST(UpstreamSemantics, LowNodeUtilizationCountsRequests) {
  auto pol = parse_policy_text(
      lnu_policy("{thresholds: {cpu: 20, memory: 20, pods: 20}, targetThresholds: {cpu: 50, memory: 50, pods: 50}, "
                 "evictionLimits: {node: 2}}"),
      "lnu.yaml");
  ASSERT_TRUE(pol.ok()) << pol.message();
  EXPECT_TRUE(pol->profiles[0].load_aware.requests_only);
  EXPECT_EQ(pol->profiles[0].load_aware.eviction_limit_node, 2);
  std::vector<json> objs = {node("full"), node("empty")};
  for (int i = 0; i < 6; ++i) objs.push_back(pod("w" + std::to_string(i), "full", {.cpu = "2", .memory = "1Gi"}));
  LoadReport none;   // no measurement at all: requests decide
  none.source_error = "not read";
  Plan p = plan(build(objs), none, *pol);
  EXPECT_EQ(class_of(p, "full"), NodeClass::High);   // 12 of 16 cores requested: 75 %
  EXPECT_EQ(class_of(p, "empty"), NodeClass::Low);
  // 75 % down to 50 % takes two 2-core pods, which is also the per-node limit.
  ASSERT_EQ(p.evictions.size(), 2u) << plan_to_json(p).dump();
  EXPECT_EQ(p.evictions[0].sized_by, "requests");
  for (const std::string& bad : {lnu_policy("{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, "
                                            "evictableNamespaces: {include: [a]}}"),
                                 lnu_policy("{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, "
                                            "metricsUtilization: {metricsServer: true}}"),
                                 lnu_policy("{thresholds: {cpu: 20}, targetThresholds: {cpu: 50}, metrics: {}}")}) {
    auto r = parse_policy_text(bad, "lnu.yaml");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.message().find("lnu.yaml: profiles[0].pluginConfig[1].args."), std::string::npos) << r.message();
  }
}

}  // namespace
}  // namespace weft::descheduler::test
