// Kubernetes' own gang API (scheduling.k8s.io PodGroup, CompositePodGroup, Workload,
// spec.schedulingGroup) as kube-scheduler documents it, Volcano 1.15's sub-groups and
// gang actions, and Volcano input weft used to refuse. One behaviour per test.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>

#include "scheduler/core/native_groups.h"
#include "scheduler/core/session.h"
#include "scheduler/core/snapshot.h"
#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler::testing {
namespace {

using nlohmann::json;

Config config_of(const std::string& text) {
  auto c = parse_config(text, "test.conf");
  EXPECT_TRUE(c.ok()) << c.message();
  return c.ok() ? *c : Config::defaults();
}

json cpu(int n) { return {{"cpu", std::to_string(n)}, {"memory", "1Gi"}}; }

json pod_spec(int cpus) {
  return {{"schedulerName", "weft"}, {"containers", json::array({{{"name", "c"}, {"resources", {{"requests", cpu(cpus)}}}}})}};
}

// A pod naming a scheduling.k8s.io PodGroup in spec.schedulingGroup.
json native_pod(const std::string& name, const std::string& group, int cpus, json labels = json::object()) {
  json spec = pod_spec(cpus);
  spec["schedulingGroup"] = {{"podGroupName", group}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", spec}};
}

json policy(int min_count) {
  return min_count > 0 ? json{{"gang", {{"minCount", min_count}}}} : json{{"basic", json::object()}};
}

json native_group(const std::string& name, int min_count, const std::string& key = "", const std::string& parent = "",
                  const std::string& version = "v1beta1") {
  json spec = {{"schedulingPolicy", policy(min_count)}};
  if (!key.empty()) spec["schedulingConstraints"] = {{"topology", json::array({{{"key", key}}})}};
  if (!parent.empty()) spec["parentCompositePodGroupName"] = parent;
  return {{"apiVersion", "scheduling.k8s.io/" + version},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", spec}};
}

json composite(const std::string& name, int min_groups, const std::string& key, const std::string& parent = "") {
  json spec = {{"schedulingPolicy", min_groups > 0 ? json{{"gang", {{"minGroupCount", min_groups}}}}
                                                   : json{{"basic", json::object()}}},
               {"workloadRef", {{"workloadName", "w"}, {"templateName", name}}}};
  if (!key.empty()) spec["schedulingConstraints"] = {{"topology", json::array({{{"key", key}}})}};
  if (!parent.empty()) spec["parentCompositePodGroupName"] = parent;
  return {{"apiVersion", "scheduling.k8s.io/v1alpha3"},
          {"kind", "CompositePodGroup"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", spec}};
}

json volcano_group(const std::string& name, int min, json spec_extra = json::object()) {
  json spec = {{"queue", "default"}, {"minMember", min}};
  spec.update(spec_extra);
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", spec}};
}

json volcano_pod(const std::string& name, const std::string& group, int cpus, json labels = json::object(),
                 const std::string& node = "") {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata",
             {{"name", name}, {"namespace", "default"}, {"labels", labels},
              {"annotations", {{"scheduling.k8s.io/group-name", group}}}}},
            {"spec", pod_spec(cpus)}};
  if (!node.empty()) p["spec"]["nodeName"] = node, p["status"]["phase"] = "Running";
  return p;
}

int bound(const ScenarioRun& run, const std::string& prefix, int count) {
  int n = 0;
  for (int i = 0; i < count; ++i) n += run.node_of("default/" + prefix + std::to_string(i)) != "";
  return n;
}

json condition_of(const ScenarioRun& run, const std::string& group_key) {
  json g = run.podgroup(group_key);
  for (const auto& c : g.value("conditions", json::array()))
    if (c["type"] == "PodGroupInitiallyScheduled") return c;
  return json::object();
}

const std::string kGroupKey = "podgroups.scheduling.k8s.io/default/";

// kube-scheduler: four pods naming a gang of minCount 4 with room for two: none bound, and
// the PodGroup says Unschedulable; with room for four all bind and it says Scheduled.
TEST(NativeGang, MinCountIsAllOrNothing) {
  for (int nodes : {2, 4}) {
    SCOPED_TRACE(nodes);
    ScenarioBuilder s;
    for (int i = 0; i < nodes; ++i) s.node("n" + std::to_string(i), 4);
    s.add(native_group("train", 4));
    for (int i = 0; i < 4; ++i) s.add(native_pod("train-" + std::to_string(i), "train", 4));
    auto run = s.run();
    EXPECT_EQ(bound(run, "train-", 4), nodes == 4 ? 4 : 0);
    json c = condition_of(run, kGroupKey + "train");
    EXPECT_EQ(c.value("status", ""), nodes == 4 ? "True" : "False") << run.podgroup(kGroupKey + "train").dump();
    EXPECT_EQ(c.value("reason", ""), nodes == 4 ? "Scheduled" : "Unschedulable");
    EXPECT_EQ(run.podgroup(kGroupKey + "train").value("minMember", 0), 4) << "simulate reports the gang's minCount";
  }
}

// A pod naming a PodGroup that does not exist waits (kube-scheduler's PreEnqueue), and a
// gang with fewer pods than minCount waits for the rest.
TEST(NativeGang, MissingGroupOrTooFewPodsBindsNothing) {
  ScenarioBuilder s;
  s.node("n0", 16);
  s.add(native_pod("orphan-0", "absent", 1));
  s.add(native_group("short", 3));
  for (int i = 0; i < 2; ++i) s.add(native_pod("short-" + std::to_string(i), "short", 1));
  auto run = s.run();
  EXPECT_EQ(run.node_of("default/orphan-0"), "");
  EXPECT_NE(run.reason_of("default/orphan-0").find("not found"), std::string::npos) << run.reason_of("default/orphan-0");
  EXPECT_EQ(bound(run, "short-", 2), 0);
}

int failed_scheduling_events(const Decisions& d) {
  int n = 0;
  for (const auto& e : d.events) n += e.kind == "Pod" && e.reason == "FailedScheduling";
  return n;
}

// kube-scheduler holds the pods of a gang with fewer than minCount pods at PreEnqueue: no
// scheduling attempt, so no FailedScheduling Event and no condition (a 4,096-pod gang being
// created would cost thousands of writes a cycle). A complete gang that does not fit gets both.
TEST(NativeGang, PodsWaitingForTheirGangGetNoFailedSchedulingEvents) {
  for (int pods : {2, 4}) {
    SCOPED_TRACE(pods);
    SnapshotBuilder b;
    auto add = [&](const json& o) { ASSERT_TRUE(b.add(o).ok()) << o.dump(); };
    add({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n0"}}},
         {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "64Gi"}, {"pods", "110"}}}}}});
    add(native_group("train", 4));
    for (int i = 0; i < pods; ++i) add(native_pod("train-" + std::to_string(i), "train", 2));
    const Decisions d = run_session(b.build(), Config::defaults());
    EXPECT_TRUE(d.bindings.empty());
    EXPECT_EQ(failed_scheduling_events(d), pods == 4 ? 4 : 0);
    ASSERT_EQ(d.status_writes.size(), pods == 4 ? 1u : 0u);
    if (pods == 4) {
      EXPECT_EQ(d.status_writes[0].status["conditions"][0].value("reason", ""), "Unschedulable");
    }
  }
}

// A basic PodGroup schedules pod by pod.
TEST(NativeGang, BasicPolicyPlacesWhatFits) {
  ScenarioBuilder s;
  s.node("n0", 4);
  s.add(native_group("web", 0));
  for (int i = 0; i < 3; ++i) s.add(native_pod("web-" + std::to_string(i), "web", 2));
  auto run = s.run();
  EXPECT_EQ(bound(run, "web-", 3), 2);
}

// Objects are told apart by API group: a scheduling.k8s.io PodGroup and a Volcano PodGroup
// of the same name are two groups; a PodGroup of another group is refused.
TEST(NativeGang, GroupsAreToldApartByApiGroup) {
  ScenarioBuilder s;
  s.node("n0", 8);
  s.add(native_group("same", 2));
  s.add(volcano_group("same", 1));
  for (int i = 0; i < 2; ++i) s.add(native_pod("k-" + std::to_string(i), "same", 1));
  s.add(volcano_pod("v-0", "same", 1));
  auto run = s.run();
  EXPECT_EQ(bound(run, "k-", 2), 2);
  EXPECT_NE(run.node_of("default/v-0"), "");
  SnapshotBuilder b;
  json other = native_group("x", 1);
  other["apiVersion"] = "example.com/v1";
  auto st = b.add(other, "s.yaml: document 1");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("is not one weft reads"), std::string::npos) << st.message();
}

TEST(NativeGang, ValidationNamesTheField) {
  struct Case {
    json spec;
    const char* names;
  } cases[] = {
      {{{"schedulingPolicy", json::object()}}, "spec.schedulingPolicy: exactly one of basic and gang"},
      {{{"schedulingPolicy", {{"basic", json::object()}, {"gang", {{"minCount", 2}}}}}}, "exactly one of basic and gang"},
      {{{"schedulingPolicy", {{"gang", {{"minCount", 0}}}}}}, "spec.schedulingPolicy.gang.minCount: 0 is below 1"},
      {{{"schedulingPolicy", {{"gang", json::object()}}}}, "spec.schedulingPolicy.gang.minCount: required"},
      {{{"schedulingPolicy", policy(1)}, {"schedulingConstraints", {{"topology", json::array({{{"key", "a b"}}})}}}},
       "spec.schedulingConstraints.topology[0].key: 'a b' is not a label key"},
      {{{"schedulingPolicy", policy(1)},
        {"schedulingConstraints", {{"topology", json::array({{{"key", "a"}}, {{"key", "b"}}})}}}},
       "at most 1 item"},
      {{{"schedulingPolicy", policy(1)}, {"resourceClaims", json::array({{{"name", "gpu"}}})}},
       "spec.resourceClaims: not supported by weft"},
      {{{"schedulingPolicy", policy(1)}, {"preemptionPolicy", "Sometimes"}}, "spec.preemptionPolicy"},
      {{{"schedulingPolicy", policy(1)}, {"minMember", 2}}, "spec.minMember: unknown field"},
  };
  for (const auto& c : cases) {
    json g = native_group("bad", 1);
    g["spec"] = c.spec;
    SnapshotBuilder b;
    auto st = b.add(g, "s.yaml");
    ASSERT_FALSE(st.ok()) << c.spec.dump();
    EXPECT_NE(st.message().find(c.names), std::string::npos) << st.message();
  }
  SnapshotBuilder b;
  json v1 = native_group("old", 1);
  v1["apiVersion"] = "scheduling.k8s.io/v1";
  EXPECT_FALSE(b.add(v1, "s.yaml").ok());   // scheduling.k8s.io/v1 serves PriorityClass only
}

// KEP-5732: the gang lands inside one value of its topology key; of the racks that hold
// it, the best fit (least free room).
TEST(NativeGang, TopologyKeyKeepsTheGangInOneDomainBestFit) {
  ScenarioBuilder s;
  const std::string key = "topology.kubernetes.io/rack";
  for (int i = 0; i < 6; ++i) s.node("big-" + std::to_string(i), 4, {{key, "big"}});
  for (int i = 0; i < 4; ++i) s.node("small-" + std::to_string(i), 4, {{key, "small"}});
  s.node("loose", 64);   // no rack label: in no domain
  s.add(native_group("train", 4, key));
  for (int i = 0; i < 4; ++i) s.add(native_pod("train-" + std::to_string(i), "train", 4));
  auto run = s.run();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(run.node_of("default/train-" + std::to_string(i)).rfind("small-", 0), 0u);
}

TEST(NativeGang, TopologyKeyWithNoRoomLeavesTheGangPending) {
  ScenarioBuilder s;
  const std::string key = "topology.kubernetes.io/rack";
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 2; ++i) s.node("r" + std::to_string(r) + "-" + std::to_string(i), 4, {{key, "r" + std::to_string(r)}});
  s.add(native_group("train", 3, key));
  for (int i = 0; i < 3; ++i) s.add(native_pod("train-" + std::to_string(i), "train", 4));
  auto run = s.run();
  EXPECT_EQ(bound(run, "train-", 3), 0);
  EXPECT_NE(run.reason_of("default/train-0").find("no single domain of topology key " + key), std::string::npos)
      << run.reason_of("default/train-0");
}

// weft's derived tier labels: a leaf value counts within its fabric, so two fabrics that
// both call a leaf "l0" are two domains.
TEST(NativeGang, DerivedLeafKeyCountsWithinItsFabric) {
  ScenarioBuilder s;
  for (const char* f : {"fa", "fb"})
    for (int i = 0; i < 2; ++i)
      s.node(std::string(f) + "-" + std::to_string(i), 4,
             {{"weft.dev/ib-fabric", f}, {"weft.dev/ib-spine", "s0"}, {"weft.dev/ib-leaf", "l0"}});
  s.add(native_group("train", 3, "weft.dev/ib-leaf"));
  for (int i = 0; i < 3; ++i) s.add(native_pod("train-" + std::to_string(i), "train", 4));
  auto run = s.run();
  EXPECT_EQ(bound(run, "train-", 3), 0);
}

// Two spines (key "spine"), racks under them (key "rack"): s1 has racks r1, r2 of two free
// nodes each, s2 has one rack of two. Two children of two pods each must each sit in a
// rack and both in one spine: only s1 holds them.
void spines(ScenarioBuilder& s) {
  auto add = [&](const std::string& name, const std::string& spine, const std::string& rack) {
    s.node(name, 4, {{"spine", spine}, {"rack", rack}});
  };
  add("a1", "s1", "r1"), add("a2", "s1", "r1"), add("b1", "s1", "r2"), add("b2", "s1", "r2");
  add("c1", "s2", "r3"), add("c2", "s2", "r3");
}

TEST(NativeGang, CompositePlacesEachChildInItsDomainInsideTheParents) {
  ScenarioBuilder s;
  spines(s);
  s.add(composite("job", 2, "spine"));
  for (const char* c : {"x", "y"}) {
    s.add(native_group(c, 2, "rack", "job", "v1alpha3"));
    for (int i = 0; i < 2; ++i) s.add(native_pod(std::string(c) + "-" + std::to_string(i), c, 4));
  }
  auto run = s.run();
  std::set<char> racks;
  for (const char* c : {"x", "y"}) {
    std::string n0 = run.node_of(std::string("default/") + c + "-0"), n1 = run.node_of(std::string("default/") + c + "-1");
    ASSERT_FALSE(n0.empty());
    ASSERT_FALSE(n1.empty());
    EXPECT_EQ(n0[0], n1[0]) << c << " spans racks";
    EXPECT_NE(n0[0], 'c') << c << " left the spine";
    racks.insert(n0[0]);
  }
  EXPECT_EQ(racks.size(), 2u);
  EXPECT_EQ(condition_of(run, kGroupKey + "x").value("status", ""), "True");
}

TEST(NativeGang, CompositeGangNeedsMinGroupCountChildren) {
  ScenarioBuilder s;
  spines(s);
  s.add(composite("job", 2, "spine"));
  // Each child needs three pods in one rack: no rack holds three.
  s.add(native_group("x", 2, "rack", "job", "v1alpha3"));
  for (int i = 0; i < 2; ++i) s.add(native_pod("x-" + std::to_string(i), "x", 4));
  s.add(native_group("y", 3, "rack", "job", "v1alpha3"));
  for (int i = 0; i < 3; ++i) s.add(native_pod("y-" + std::to_string(i), "y", 4));
  auto run = s.run();
  EXPECT_EQ(bound(run, "x-", 2), 0) << "the composite is all-or-nothing over minGroupCount children";
  EXPECT_EQ(condition_of(run, kGroupKey + "x").value("status", ""), "False");
  EXPECT_EQ(run.podgroup("compositepodgroups.scheduling.k8s.io/default/job").value("minGroupCount", 0), 2);
}

// Nested CompositePodGroups, as kube-scheduler's CPG queueing tests describe them: a tree
// waits while any ancestor is missing or the parents form a cycle; each composite needs
// minGroupCount of its children ready (a child composite counting when enough of its own
// are); a ready branch starts while an unready subtree waits.
void leaf(ScenarioBuilder& s, const std::string& group, int min_count, const std::string& parent, int pods,
          const std::string& key = "") {
  s.add(native_group(group, min_count, key, parent, "v1alpha3"));
  for (int i = 0; i < pods; ++i) s.add(native_pod(group + "-" + std::to_string(i), group, 1));
}

TEST(NestedComposite, TreeWaitsForAMissingAncestor) {
  for (bool with_root : {false, true}) {
    ScenarioBuilder s;
    s.node("n", 8);
    s.add(composite("mid", 1, "", "root"));
    if (with_root) s.add(composite("root", 1, ""));
    leaf(s, "pg1", 2, "mid", 2);
    auto run = s.run();
    EXPECT_EQ(bound(run, "pg1-", 2), with_root ? 2 : 0) << "root present: " << with_root;
    if (!with_root) {
      EXPECT_NE(run.reason_of("default/pg1-0").find("root"), std::string::npos) << run.reason_of("default/pg1-0");
    }
  }
}

TEST(NestedComposite, CycleOfParentsHoldsThePods) {
  ScenarioBuilder s;
  s.node("n", 8);
  s.add(composite("mid", 1, "", "root"));
  s.add(composite("root", 1, "", "mid"));
  leaf(s, "pg1", 2, "mid", 2);
  auto run = s.run();
  EXPECT_EQ(bound(run, "pg1-", 2), 0);
  EXPECT_NE(run.reason_of("default/pg1-0").find("cycle"), std::string::npos) << run.reason_of("default/pg1-0");
}

TEST(NestedComposite, CousinBranchesCountOnlyWhenEachIsReady) {
  for (int second_min : {2, 1}) {
    ScenarioBuilder s;
    s.node("n", 8);
    s.add(composite("root", 2, ""));
    s.add(composite("branch1", 1, "", "root"));
    s.add(composite("branch2", 1, "", "root"));
    leaf(s, "b1", 1, "branch1", 1);
    leaf(s, "b2", second_min, "branch2", 1);   // one pod: ready only with minCount 1
    auto run = s.run();
    const int expected = second_min == 1 ? 1 : 0;
    EXPECT_EQ(bound(run, "b1-", 1), expected) << "b2 minCount " << second_min;
    EXPECT_EQ(bound(run, "b2-", 1), expected) << "b2 minCount " << second_min;
  }
}

TEST(NestedComposite, ReadyBranchStartsWhileAnUnreadySubtreeWaits) {
  ScenarioBuilder s;
  s.node("n", 8);
  s.add(composite("root", 1, ""));
  leaf(s, "main", 1, "root", 1);
  s.add(composite("sub", 2, "", "root"));
  leaf(s, "sub1", 1, "sub", 1);
  leaf(s, "sub2", 2, "sub", 1);   // short of its minCount: the subtree has one ready child of two
  auto run = s.run();
  EXPECT_EQ(bound(run, "main-", 1), 1);
  EXPECT_EQ(bound(run, "sub1-", 1), 0) << "an unready subtree places nothing";
  EXPECT_EQ(bound(run, "sub2-", 1), 0);
  EXPECT_EQ(condition_of(run, kGroupKey + "main").value("status", ""), "True");
}

TEST(NestedComposite, EachLevelKeepsItsSubtreeInOneDomainOfItsKey) {
  ScenarioBuilder s;
  spines(s);   // s1: racks r1 (a1, a2), r2 (b1, b2); s2: rack r3 (c1, c2); 4 cpu each
  s.add(composite("job", 2, "spine"));
  for (const char* m : {"m1", "m2"}) {
    s.add(composite(m, 2, "rack", "job"));
    for (int i = 0; i < 2; ++i) {
      const std::string g = std::string(m) + "g" + std::to_string(i);
      s.add(native_group(g, 1, "", m, "v1alpha3"));
      s.add(native_pod(g + "-0", g, 4));
    }
  }
  auto run = s.run();
  std::set<std::string> racks;
  std::set<char> spines_used;
  for (const char* m : {"m1", "m2"}) {
    const std::string n0 = run.node_of(std::string("default/") + m + "g0-0"), n1 = run.node_of(std::string("default/") + m + "g1-0");
    ASSERT_FALSE(n0.empty()) << m;
    ASSERT_FALSE(n1.empty()) << m;
    EXPECT_EQ(n0[0], n1[0]) << m << " spans racks";
    racks.insert(n0.substr(0, 1));
    spines_used.insert(n0[0] == 'c' ? '2' : '1');
  }
  EXPECT_EQ(racks.size(), 2u) << "each mid composite fills its own rack";
  EXPECT_EQ(spines_used.size(), 1u) << "the root keeps both in one spine";
}

TEST(NestedComposite, CompositeIsServedOnlyAtV1alpha3) {
  Snapshot snap;
  json cpg = composite("job", 1, "");
  cpg["apiVersion"] = "scheduling.k8s.io/v1beta1";
  auto st = add_native_object(snap, cpg, "cpg.yaml");
  ASSERT_TRUE(st.has_value());
  EXPECT_FALSE(st->ok());
  EXPECT_NE(st->message().find("does not serve CompositePodGroup"), std::string::npos) << st->message();
}

// Volcano subGroupPolicy: each partition (volcano.sh/partition-id) of subGroupSize 2 sits
// in one leaf; minSubGroups 2 partitions or nothing.
void leaves(ScenarioBuilder& s, int second_leaf_nodes) {
  auto labels = [](const std::string& leaf) {
    return json{{"weft.dev/ib-fabric", "f"}, {"weft.dev/ib-spine", "s"}, {"weft.dev/ib-leaf", leaf}};
  };
  for (int i = 0; i < 3; ++i) s.node("l0-" + std::to_string(i), 4, labels("l0"));
  for (int i = 0; i < second_leaf_nodes; ++i) s.node("l1-" + std::to_string(i), 4, labels("l1"));
  s.node("l2-0", 4, labels("l2"));
}

json partitioned_group(int min_sub_groups) {
  return volcano_group("tp", 4,
                       {{"subGroupPolicy", json::array({{{"name", "tp"},
                                                         {"subGroupSize", 2},
                                                         {"minSubGroups", min_sub_groups},
                                                         {"matchLabelKeys", json::array({"volcano.sh/partition-id"})},
                                                         {"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}}})}});
}

TEST(VolcanoSubGroups, EachPartitionInOneLeaf) {
  for (int second : {1, 2}) {
    SCOPED_TRACE(second);
    ScenarioBuilder s;
    leaves(s, second);
    s.add(partitioned_group(2));
    for (int i = 0; i < 4; ++i)
      s.add(volcano_pod("tp-" + std::to_string(i), "tp", 4, {{"volcano.sh/partition-id", std::to_string(i / 2)}}));
    auto run = s.run();
    if (second == 1) {   // one partition fits l0; the other fits no leaf (l0 has one node left)
      EXPECT_EQ(bound(run, "tp-", 4), 0);
      continue;
    }
    ASSERT_EQ(bound(run, "tp-", 4), 4);
    for (int p = 0; p < 2; ++p) {
      std::string a = run.node_of("default/tp-" + std::to_string(2 * p)), b = run.node_of("default/tp-" + std::to_string(2 * p + 1));
      EXPECT_EQ(a.substr(0, 2), b.substr(0, 2)) << "partition " << p << " spans leaves";
    }
  }
}

// An elastic job (minSubGroups below its partitions) starts in a domain with room for its
// minimum only: a domain is passed over only when even the job's least need does not fit.
TEST(VolcanoSubGroups, ElasticJobStartsWhereOnlyItsMinimumFits) {
  ScenarioBuilder s;
  leaves(s, 1);   // leaves of 3, 1 and 1 nodes of 4 cpu
  s.add(volcano_group("tp", 2,
                      {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}},
                       {"subGroupPolicy", json::array({{{"name", "tp"}, {"subGroupSize", 2}, {"minSubGroups", 1},
                                                        {"matchLabelKeys", json::array({"volcano.sh/partition-id"})}}})}}));
  for (int i = 0; i < 8; ++i)
    s.add(volcano_pod("tp-" + std::to_string(i), "tp", 4, {{"volcano.sh/partition-id", std::to_string(i / 2)}}));
  auto run = s.run();
  EXPECT_EQ(bound(run, "tp-", 8), 2) << "one partition of two in the leaf of three nodes";
}

// 128 partitions of 32 pods x 8 GPUs on 8,192 GPU nodes in leaves of 32: every partition in
// a leaf, the job in one fabric, in one session of under 0.75 s, about 0.1 s here (before:
// every leaf and spine was tried as the job's area, each against every leaf: 1.4 s here,
// 10 s at the bench's 10,000 nodes).
TEST(VolcanoSubGroups, PartitionsOfALargeJobDecideQuickly) {
  const json gpu = {{"cpu", "192"}, {"memory", "2Ti"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}};
  SnapshotBuilder b;
  auto add = [&](const json& o) { ASSERT_TRUE(b.add(o).ok()) << o.dump(); };
  for (int i = 0; i < 8192; ++i)
    add({{"apiVersion", "v1"}, {"kind", "Node"},
         {"metadata", {{"name", "n" + std::to_string(i)},
                       {"labels", {{"weft.dev/ib-fabric", i < 4096 ? "f0" : "f1"},
                                   {"weft.dev/ib-spine", "s" + std::to_string(i / 512)},
                                   {"weft.dev/ib-leaf", "l" + std::to_string(i / 32)}}}}},
         {"status", {{"allocatable", gpu}}}});
  add(volcano_group("tp", 4096,
                    {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 3}}},
                     {"subGroupPolicy", json::array({{{"name", "tp"}, {"subGroupSize", 32}, {"minSubGroups", 128},
                                                      {"matchLabelKeys", json::array({"volcano.sh/partition-id"})},
                                                      {"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}}})}}));
  for (int i = 0; i < 4096; ++i) {
    json p = volcano_pod("tp-" + std::to_string(i), "tp", 96, {{"volcano.sh/partition-id", std::to_string(i / 32)}});
    p["spec"]["containers"][0]["resources"]["requests"] = {{"cpu", "96"}, {"memory", "1Ti"}, {"nvidia.com/gpu", "8"}};
    add(p);
  }
  const Snapshot snap = b.build();
  const auto start = std::chrono::steady_clock::now();
  const Decisions d = run_session(snap, Config::defaults());
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(d.bindings.size(), 4096u);
  std::map<std::string, std::set<std::string>> leaves_of;   // partition -> leaves
  std::set<std::string> fabrics;
  for (const auto& bnd : d.bindings) {
    const int i = std::stoi(bnd.pod.substr(bnd.pod.find('-') + 1)), n = std::stoi(bnd.node.substr(1));
    leaves_of[std::to_string(i / 32)].insert("l" + std::to_string(n / 32));
    fabrics.insert(n < 4096 ? "f0" : "f1");
  }
  for (const auto& [partition, leaves] : leaves_of) EXPECT_EQ(leaves.size(), 1u) << "partition " << partition;
  EXPECT_EQ(fabrics.size(), 1u);
  EXPECT_LT(took, 0.75) << "one session took " << took << " s";
}

TEST(VolcanoSubGroups, PolicyIsParsedWithVolcanoDefaults) {
  SnapshotBuilder b;
  json g = volcano_group("g", 1, {{"subGroupPolicy", json::array({{{"name", "w"}, {"matchLabelKeys", {"k"}}}})}});
  ASSERT_TRUE(b.add(g, "s.yaml").ok());
  Snapshot snap = b.build();
  const auto& rule = snap.podgroups.at("default/g").sub_groups.at(0);
  EXPECT_EQ(rule.size, 1);
  EXPECT_EQ(rule.min_groups, 0);
  json bad = volcano_group("g", 1, {{"subGroupPolicy", json::array({{{"subGroupSize", 0}}})}});
  auto st = SnapshotBuilder().add(bad, "s.yaml");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("spec.subGroupPolicy[0].subGroupSize: 0 is below 1"), std::string::npos) << st.message();
}

// Volcano input weft used to refuse: minTaskMember keyed by the empty role (pods without
// volcano.sh/task-spec), and tier names that are not DNS-1123 names.
TEST(VolcanoInput, MinTaskMemberOfTheEmptyRole) {
  for (int untyped_fit : {1, 2}) {
    SCOPED_TRACE(untyped_fit);
    ScenarioBuilder s;
    s.node("n0", 4 + 4 * untyped_fit);   // the ps pod and `untyped_fit` role-less pods
    s.add(volcano_group("job", 2, {{"minTaskMember", {{"", 2}}}}));
    json ps = volcano_pod("job-ps", "job", 4);
    ps["metadata"]["annotations"]["volcano.sh/task-spec"] = "ps";
    s.add(ps);
    for (int i = 0; i < 2; ++i) s.add(volcano_pod("job-w" + std::to_string(i), "job", 4));
    auto run = s.run();
    EXPECT_EQ(bound(run, "job-w", 2), untyped_fit == 2 ? 2 : 0);
  }
}

TEST(VolcanoInput, TierNamesNeedNotBeDnsNames) {
  ScenarioBuilder s;
  for (const char* n : {"r0-a", "r0-b", "r1-a"}) s.node(n, 4);
  auto hn = [](const std::string& name, const std::string& regex) {
    return json{{"apiVersion", "topology.volcano.sh/v1alpha1"},
                {"kind", "HyperNode"},
                {"metadata", {{"name", name}}},
                {"spec", {{"tier", 1}, {"tierName", "Rack_A"},
                          {"members", json::array({{{"type", "Node"}, {"selector", {{"regexMatch", {{"pattern", regex}}}}}}})}}}};
  };
  s.add(hn("rack-0", "^r0-"));
  s.add(hn("rack-1", "^r1-"));
  s.add(volcano_group("job", 2, {{"networkTopology", {{"mode", "hard"}, {"highestTierName", "Rack_A"}}}}));
  for (int i = 0; i < 2; ++i) s.add(volcano_pod("job-" + std::to_string(i), "job", 4));
  auto run = s.run();
  EXPECT_EQ(run.node_of("default/job-0").substr(0, 2), "r0");
  EXPECT_EQ(run.node_of("default/job-1").substr(0, 2), "r0");
}

// gangpreempt (Volcano 1.15): a higher-priority gang takes a lower-priority gang of its
// queue whole (allowWholeBundle, the default), where preempt only takes pods above minMember.
TEST(GangActions, GangPreemptTakesAVictimGangWhole) {
  const std::string tiers =
      "tiers:\n- plugins:\n  - name: priority\n  - name: gang\n  - name: conformance\n- plugins:\n  - name: predicates\n";
  struct Case {
    std::string actions, configurations;
    size_t evictions;
  } cases[] = {{"enqueue, allocate, preempt", "", 0},
               {"enqueue, allocate, gangpreempt", "", 2},
               {"enqueue, allocate, gangpreempt", "configurations:\n- name: gangpreempt\n  arguments: {allowWholeBundle: false}\n", 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.actions + " " + c.configurations);
    ScenarioBuilder s;
    s.node("n0", 4), s.node("n1", 4);
    for (auto [name, value] : {std::pair{"low", 1}, std::pair{"high", 100}})
      s.add({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", name}}}, {"value", value}});
    s.add(volcano_group("old", 2, {{"priorityClassName", "low"}}));
    s.add(volcano_pod("old-0", "old", 4, json::object(), "n0"));
    s.add(volcano_pod("old-1", "old", 4, json::object(), "n1"));
    s.group("new", "default", 2, 1, false, {{"priorityClassName", "high"}});
    for (int i = 0; i < 2; ++i) s.pod("new-" + std::to_string(i), "new", 4, 1, "", 100);
    auto run = s.run(config_of("actions: \"" + c.actions + "\"\n" + tiers + c.configurations));
    EXPECT_EQ(run.report()["evictions"].size(), c.evictions) << run.report()["evictions"].dump();
  }
}

TEST(GangActions, ArgumentsAsVolcanoReadsThem) {
  auto c = parse_config("actions: \"enqueue, allocate, gangpreempt, gangreclaim\"\ntiers: []\nconfigurations:\n"
                        "- name: gangpreempt\n  arguments: {maxDomains: 3, allowWholeBundle: false}\n"
                        "- name: gangreclaim\n  arguments: {maxDomains: 0}\n",
                        "c");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->gang_preempt.max_domains, 3);
  EXPECT_FALSE(c->gang_preempt.allow_whole_bundle);
  EXPECT_EQ(c->gang_reclaim.max_domains, 8);   // not positive: Volcano's default, with a warning
  EXPECT_EQ(c->warnings.size(), 1u);
  auto bad = parse_config("actions: gangreclaim\nconfigurations:\n- name: gangreclaim\n  arguments: {maxDomain: 3}\n", "c");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("argument 'maxDomain' is unknown (supported: maxDomains, allowWholeBundle)"),
            std::string::npos)
      << bad.message();
}

// Ranked pods (Job completion index): consecutive ranks share a leaf; the report counts
// adjacent-rank pairs that cross one, and weft reaches the minimum the leaf sizes allow.
TEST(RankOrder, ConsecutiveRanksShareTheLowestDomain) {
  for (int pods : {4, 6}) {
    SCOPED_TRACE(pods);
    ScenarioBuilder s;
    auto leaf = [](const std::string& l) {
      return json{{"weft.dev/ib-fabric", "f"}, {"weft.dev/ib-spine", "s"}, {"weft.dev/ib-leaf", l}};
    };
    for (int i = 0; i < 2; ++i) s.node("a-" + std::to_string(i), 4, leaf("a"));
    for (int i = 0; i < 4; ++i) s.node("b-" + std::to_string(i), 4, leaf("b"));
    for (int i = 0; i < 2; ++i) s.node("c-" + std::to_string(i), 4, leaf("c"));
    s.add(volcano_group("rk", pods));
    for (int i = pods - 1; i >= 0; --i)   // names out of rank order on purpose
      s.add(volcano_pod("rk-" + std::to_string(i), "rk", 4, {{"batch.kubernetes.io/job-completion-index", std::to_string((i * 5) % pods)}}));
    auto run = s.run();
    ASSERT_EQ(bound(run, "rk-", pods), pods);
    EXPECT_EQ(run.podgroup("default/rk").value("rank_pairs_crossing_leaf", -1), pods == 4 ? 0 : 1)
        << run.podgroup("default/rk").dump();
  }
}

// A PodGroup may name the rank label itself (as Kueue's podIndexLabel).
TEST(RankOrder, PodGroupNamesTheIndexLabel) {
  ScenarioBuilder s;
  auto leaf = [](const std::string& l) {
    return json{{"weft.dev/ib-fabric", "f"}, {"weft.dev/ib-spine", "s"}, {"weft.dev/ib-leaf", l}};
  };
  for (const char* l : {"a", "b"})
    for (int i = 0; i < 2; ++i) s.node(std::string(l) + "-" + std::to_string(i), 4, leaf(l));
  json g = native_group("rk", 4);
  g["metadata"]["annotations"] = {{"weft.dev/pod-index-label", "example.com/rank"}};
  s.add(g);
  for (int i = 0; i < 4; ++i) s.add(native_pod("rk-" + std::to_string(i), "rk", 4, {{"example.com/rank", std::to_string((i * 3) % 4)}}));
  auto run = s.run();
  ASSERT_EQ(bound(run, "rk-", 4), 4);
  EXPECT_EQ(run.podgroup(kGroupKey + "rk").value("rank_pairs_crossing_leaf", -1), 1);
}

}  // namespace
}  // namespace weft::scheduler::testing
