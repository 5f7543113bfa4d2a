// kube-scheduler's volume filters in weft-scheduler simulate: VolumeBinding (bound claims
// follow their volume's node affinity, Immediate claims wait, WaitForFirstConsumer claims
// take a static volume or are provisioned where the class allows), VolumeZone,
// VolumeRestrictions (ReadWriteOncePod) and NodeVolumeLimits (CSINode allocatable), with
// Volcano's predicate switches.
#include <gtest/gtest.h>

#include "scheduler/core/pod_fields.h"
#include "scheduler/core/snapshot.h"
#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler::testing {
namespace {

using nlohmann::json;

json pod_with_claims(const std::string& name, const std::vector<std::string>& claims, const std::string& node = "") {
  json volumes = json::array();
  for (const auto& c : claims) volumes.push_back({{"name", c}, {"persistentVolumeClaim", {{"claimName", c}}}});
  json spec = {{"schedulerName", "weft"},
               {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}}}},
               {"volumes", volumes}};
  json status = json::object();
  if (!node.empty()) spec["nodeName"] = node, status["phase"] = "Running";
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", spec}, {"status", status}};
}

json hostname_affinity(const std::string& node) {
  return {{"required", {{"nodeSelectorTerms", {{{"matchExpressions", {{{"key", "kubernetes.io/hostname"},
                                                                        {"operator", "In"},
                                                                        {"values", {node}}}}}}}}}}};
}

json volume(const std::string& name, const std::string& size, const std::string& cls, json extra = json::object()) {
  json pv = {{"apiVersion", "v1"}, {"kind", "PersistentVolume"}, {"metadata", {{"name", name}}},
             {"spec", {{"capacity", {{"storage", size}}}, {"accessModes", {"ReadWriteOnce"}}, {"storageClassName", cls}}},
             {"status", {{"phase", "Available"}}}};
  pv["spec"].update(extra);
  return pv;
}

json local_volume(const std::string& name, const std::string& node, const std::string& size = "10Gi") {
  return volume(name, size, "local", {{"local", {{"path", "/mnt/" + name}}}, {"nodeAffinity", hostname_affinity(node)}});
}

json claim(const std::string& name, const std::string& cls, const std::string& size = "5Gi",
           std::vector<std::string> modes = {"ReadWriteOnce"}) {
  return {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"accessModes", modes}, {"storageClassName", cls}, {"resources", {{"requests", {{"storage", size}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

// A claim the PV controller bound to `pv` (and the volume's claimRef).
json bound_claim(const std::string& name, const std::string& pv, std::vector<std::string> modes = {"ReadWriteOnce"}) {
  json c = claim(name, "local", "5Gi", std::move(modes));
  c["spec"]["volumeName"] = pv;
  c["metadata"]["annotations"] = {{"pv.kubernetes.io/bind-completed", "yes"}};
  c["status"]["phase"] = "Bound";
  return c;
}

json storage_class(const std::string& name, const std::string& provisioner, const std::string& mode,
                   json extra = json::object()) {
  json sc = {{"apiVersion", "storage.k8s.io/v1"}, {"kind", "StorageClass"}, {"metadata", {{"name", name}}},
             {"provisioner", provisioner}, {"volumeBindingMode", mode}};
  sc.update(extra);
  return sc;
}

void three_nodes(ScenarioBuilder& b, const std::vector<std::string>& zones = {"a", "b", "c"}) {
  for (int i = 0; i < 3; ++i) {
    std::string n = "n" + std::to_string(i + 1);
    b.node(n, 8, {{"kubernetes.io/hostname", n}, {"topology.kubernetes.io/zone", zones[i]}});
  }
}

TEST(Volumes, PodWithClaimBoundToLocalVolumeLandsOnTheVolumesNode) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  b.add(local_volume("pv-n2", "n2"));
  b.add(bound_claim("data", "pv-n2"));
  b.add(pod_with_claims("db", {"data"}));
  auto run = b.run();
  EXPECT_EQ(run.node_of("default/db"), "n2") << run.reason_of("default/db");
}

TEST(Volumes, TheIssueScenarioFileIsReadAndPlaced) {
  auto run = run_scenario("local_pv");
  EXPECT_EQ(run.node_of("default/db-0"), "node-2") << run.reason_of("default/db-0");
}

TEST(Volumes, BoundVolumeOnAMissingNodeAndMissingVolumeKeepThePodPending) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  b.add(local_volume("pv-gone", "n9"));
  b.add(bound_claim("data", "pv-gone"));
  b.add(bound_claim("lost", "no-such-pv"));
  b.add(pod_with_claims("a", {"data"}));
  b.add(pod_with_claims("b", {"lost"}));
  b.add(pod_with_claims("c", {"nope"}));
  auto run = b.run();
  EXPECT_EQ(run.node_of("default/a"), "");
  EXPECT_NE(run.reason_of("default/a").find("3 node(s) had volume node affinity conflict"), std::string::npos)
      << run.reason_of("default/a");
  EXPECT_NE(run.reason_of("default/b").find("pvc(s) bound to non-existent pv(s)"), std::string::npos)
      << run.reason_of("default/b");
  EXPECT_NE(run.reason_of("default/c").find("persistentvolumeclaim \"nope\" not found"), std::string::npos)
      << run.reason_of("default/c");
}

// Volcano's default configuration with predicate.VolumeBindingEnable false.
Result<Config> volume_binding_off() {
  return parse_config(R"(actions: "enqueue, allocate"
tiers:
- plugins: [{name: priority}, {name: gang}]
- plugins:
  - {name: predicates, arguments: {predicate.VolumeBindingEnable: false}}
  - {name: proportion}
)", "conf");
}

TEST(Volumes, UnboundImmediateClaimWaitsForThePersistentVolumeController) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("fast", "ebs.csi.aws.com", "Immediate"));
  b.add(claim("data", "fast"));
  b.add(pod_with_claims("p", {"data"}));
  auto run = b.run();
  EXPECT_EQ(run.node_of("default/p"), "");
  EXPECT_NE(run.reason_of("default/p").find("pod has unbound immediate PersistentVolumeClaims"), std::string::npos)
      << run.reason_of("default/p");
  // Volcano's switch off: the claim is not looked at.
  auto config = volume_binding_off();
  ASSERT_TRUE(config) << config.message();
  EXPECT_NE(b.run(*config).node_of("default/p"), "");
}

TEST(Volumes, WaitForFirstConsumerTakesTheSmallestFittingStaticVolume) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  b.add(local_volume("small-n1", "n1", "2Gi"));    // too small for the claim
  b.add(local_volume("small-n2", "n2", "4Gi"));
  b.add(local_volume("big-n3", "n3", "100Gi"));    // the node's smallest that fits wins
  b.add(local_volume("fit-n3", "n3", "10Gi"));
  b.add(claim("data", "local", "5Gi"));
  b.add(pod_with_claims("p", {"data"}));
  auto run = b.run();
  EXPECT_EQ(run.node_of("default/p"), "n3") << run.reason_of("default/p");
  ASSERT_TRUE(run.report().contains("volume_bindings")) << run.report().dump();
  EXPECT_EQ(run.report()["volume_bindings"][0]["claim"], "default/data");
  EXPECT_EQ(run.report()["volume_bindings"][0]["volume"], "fit-n3");
  // VolumeBinding switched off: no filter and no PreBind, as in Volcano (the claim stays
  // unbound; the pod is placed on its other filters).
  auto config = volume_binding_off();
  ASSERT_TRUE(config) << config.message();
  auto off = b.run(*config);
  EXPECT_NE(off.node_of("default/p"), "");
  EXPECT_FALSE(off.report().contains("volume_bindings")) << off.report().dump();
}

TEST(Volumes, WaitForFirstConsumerWithoutAVolumeNeedsAProvisionerAllowedOnTheNode) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("zonal", "ebs.csi.aws.com", "WaitForFirstConsumer",
                      {{"allowedTopologies", {{{"matchLabelExpressions",
                                               {{{"key", "topology.kubernetes.io/zone"}, {"values", {"c"}}}}}}}}}));
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  b.add(claim("data", "zonal"));
  b.add(claim("nothing", "local"));
  b.add(pod_with_claims("p", {"data"}));
  b.add(pod_with_claims("q", {"nothing"}));
  auto run = b.run();
  EXPECT_EQ(run.node_of("default/p"), "n3") << run.reason_of("default/p");
  ASSERT_TRUE(run.report().contains("volume_bindings")) << run.report().dump();
  EXPECT_EQ(run.report()["volume_bindings"][0]["claim"], "default/data");
  EXPECT_EQ(run.report()["volume_bindings"][0]["selected_node"], "n3");
  EXPECT_EQ(run.node_of("default/q"), "");
  EXPECT_NE(run.reason_of("default/q").find("3 node(s) didn't find available persistent volumes to bind"),
            std::string::npos)
      << run.reason_of("default/q");
}

TEST(Volumes, VolumeZoneKeepsThePodInItsVolumesZone) {
  ScenarioBuilder b;
  three_nodes(b, {"a", "b", "b"});
  json pv = volume("zonal", "10Gi", "local", {{"csi", {{"driver", "ebs.csi.aws.com"}, {"volumeHandle", "vol-1"}}}});
  pv["metadata"]["labels"] = {{"topology.kubernetes.io/zone", "a__c"}};
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  b.add(pv);
  b.add(bound_claim("data", "zonal"));
  b.add(pod_with_claims("p", {"data"}));
  EXPECT_EQ(b.run().node_of("default/p"), "n1");

  ScenarioBuilder other;
  three_nodes(other, {"b", "b", "b"});
  other.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  other.add(pv);
  other.add(bound_claim("data", "zonal"));
  other.add(pod_with_claims("p", {"data"}));
  auto run = other.run();
  EXPECT_EQ(run.node_of("default/p"), "");
  EXPECT_NE(run.reason_of("default/p").find("3 node(s) had no available volume zone"), std::string::npos)
      << run.reason_of("default/p");
  auto config = parse_config(R"(actions: "enqueue, allocate"
tiers:
- plugins: [{name: priority}, {name: gang}]
- plugins:
  - {name: predicates, arguments: {predicate.VolumeZoneEnable: false}}
  - {name: proportion}
)", "conf");
  ASSERT_TRUE(config) << config.message();
  EXPECT_NE(other.run(*config).node_of("default/p"), "");
}

TEST(Volumes, ReadWriteOncePodClaimInUseKeepsTheNextPodPending) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  b.add(volume("shared", "10Gi", "local", {{"nfs", {{"server", "s"}, {"path", "/"}}}}));
  b.add(bound_claim("once", "shared", {"ReadWriteOncePod"}));
  b.add(bound_claim("many", "shared"));
  b.add(pod_with_claims("first", {"once"}, "n1"));
  b.add(pod_with_claims("second", {"once"}));
  b.add(pod_with_claims("reader", {"many"}, "n1"));
  b.add(pod_with_claims("writer", {"many"}));
  auto run = b.run();
  EXPECT_EQ(run.node_of("default/second"), "");
  EXPECT_NE(run.reason_of("default/second")
                .find("node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"),
            std::string::npos)
      << run.reason_of("default/second");
  EXPECT_NE(run.node_of("default/writer"), "");   // ReadWriteOnce is the kubelet's business, not a filter
}

TEST(Volumes, CSINodeAllocatableCountsAttachedVolumesPerDriver) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("ebs", "ebs.csi.aws.com", "WaitForFirstConsumer"));
  for (int i = 1; i <= 3; ++i) {
    std::string n = std::to_string(i);
    b.add(volume("vol-" + n, "10Gi", "ebs", {{"csi", {{"driver", "ebs.csi.aws.com"}, {"volumeHandle", "h" + n}}}}));
    json c = bound_claim("c" + n, "vol-" + n);
    c["spec"]["storageClassName"] = "ebs";
    b.add(c);
  }
  // n1 holds one EBS volume and allows one; n2 allows none; n3 has no CSINode (no limit known).
  b.add(json::parse(R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n1"},
    "spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-1","allocatable":{"count":1}},
                       {"name":"other.csi","nodeID":"x","allocatable":{"count":0}}]}})"));
  b.add(json::parse(R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n2"},
    "spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-2","allocatable":{"count":0}}]}})"));
  b.add(pod_with_claims("running", {"c1"}, "n1"));
  b.add(pod_with_claims("same-volume", {"c1"}));   // already attached on n1: no new volume there
  b.add(pod_with_claims("new-volume", {"c2"}));
  auto run = b.run();
  EXPECT_NE(run.node_of("default/same-volume"), "n2");
  EXPECT_EQ(run.node_of("default/new-volume"), "n3") << run.reason_of("default/new-volume");

  ScenarioBuilder full;
  full.node("n1", 8, {{"kubernetes.io/hostname", "n1"}});
  full.add(storage_class("ebs", "ebs.csi.aws.com", "WaitForFirstConsumer"));
  full.add(volume("vol-1", "10Gi", "ebs", {{"csi", {{"driver", "ebs.csi.aws.com"}, {"volumeHandle", "h1"}}}}));
  full.add(bound_claim("c1", "vol-1"));
  full.add(json::parse(R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n1"},
    "spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-1","allocatable":{"count":0}}]}})"));
  full.add(pod_with_claims("p", {"c1"}));
  auto pending = full.run();
  EXPECT_EQ(pending.node_of("default/p"), "");
  EXPECT_NE(pending.reason_of("default/p").find("1 node(s) exceed max volume count"), std::string::npos)
      << pending.reason_of("default/p");
}

TEST(Volumes, PodVolumesDecodeAlikeFromTextAndTree) {
  const std::string text = R"({"metadata":{"name":"p","namespace":"ns","uid":"u1"},"spec":{"containers":[{"name":"c"}],
    "volumes":[{"name":"cfg","configMap":{"name":"x"}},{"name":"data","persistentVolumeClaim":{"claimName":"d"}},
               {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{}}}},
               {"name":"inline","csi":{"driver":"secrets.csi"}}]}})";
  auto from_text = pod_info_of_text(text);
  auto from_tree = pod_info_of(json::parse(text));
  ASSERT_TRUE(from_text) << from_text.message();
  ASSERT_TRUE(from_tree) << from_tree.message();
  for (const PodInfo* p : {&*from_text, &*from_tree}) {
    ASSERT_TRUE(p->volumes);
    ASSERT_EQ(p->volumes->volumes.size(), 3u);
    EXPECT_EQ(p->volumes->volumes[0].claim, "d");
    EXPECT_EQ(p->volumes->volumes[1].claim, "p-scratch");
    EXPECT_TRUE(p->volumes->volumes[1].ephemeral);
    EXPECT_EQ(p->volumes->volumes[2].csi_driver, "secrets.csi");
    EXPECT_EQ(p->volumes->pod_uid, "u1");
  }
  EXPECT_EQ(from_text->filter_signature, from_tree->filter_signature);
  auto bad = pod_info_of(json::parse(R"({"metadata":{"name":"p"},"spec":{"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":3}}]}})"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("spec.volumes[0].persistentVolumeClaim.claimName"), std::string::npos) << bad.message();
  EXPECT_FALSE(pod_info_of(json::parse(R"({"metadata":{"name":"p"},"spec":{"volumes":[{"name":"v","emptyDir":{}}]}})"))->volumes);
}

TEST(Volumes, EphemeralClaimMustExistAndBelongToThePod) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  json p = pod_with_claims("p", {});
  p["spec"]["volumes"] = {{{"name", "scratch"}, {"ephemeral", {{"volumeClaimTemplate", {{"spec", json::object()}}}}}}};
  b.add(p);
  auto run = b.run();
  EXPECT_EQ(run.node_of("default/p"), "");
  EXPECT_NE(run.reason_of("default/p").find(
                "waiting for ephemeral volume controller to create the persistentvolumeclaim \"p-scratch\""),
            std::string::npos)
      << run.reason_of("default/p");
}

TEST(Volumes, InTreeDisksConflictAsKubeSchedulerComparesThem) {
  auto with_volume = [](const std::string& name, json volume, const std::string& node = "") {
    json p = pod_with_claims(name, {}, node);
    volume["name"] = "disk";
    p["spec"]["volumes"] = json::array({volume});
    return p;
  };
  ScenarioBuilder b;
  b.node("n1", 8, {{"kubernetes.io/hostname", "n1"}});
  b.node("n2", 8, {{"kubernetes.io/hostname", "n2"}});
  b.add(with_volume("ebs-user", {{"awsElasticBlockStore", {{"volumeID", "vol-1"}}}}, "n1"));
  b.add(with_volume("gce-reader", {{"gcePersistentDisk", {{"pdName", "pd-1"}, {"readOnly", true}}}}, "n1"));
  b.add(with_volume("ebs-again", {{"awsElasticBlockStore", {{"volumeID", "vol-1"}, {"readOnly", true}}}}));
  b.add(with_volume("gce-reader-2", {{"gcePersistentDisk", {{"pdName", "pd-1"}, {"readOnly", true}}}}));
  auto run = b.run();
  EXPECT_EQ(run.node_of("default/ebs-again"), "n2");   // EBS: any second mount on a node conflicts
  EXPECT_NE(run.node_of("default/gce-reader-2"), "");  // GCE PD: read-only mounts share

  ScenarioBuilder one;
  one.node("n1", 8, {{"kubernetes.io/hostname", "n1"}});
  one.add(with_volume("writer", {{"gcePersistentDisk", {{"pdName", "pd-1"}}}}, "n1"));
  one.add(with_volume("second", {{"gcePersistentDisk", {{"pdName", "pd-1"}, {"readOnly", true}}}}));
  auto pending = one.run();
  EXPECT_EQ(pending.node_of("default/second"), "");
  EXPECT_NE(pending.reason_of("default/second").find("1 node(s) had no available disk"), std::string::npos)
      << pending.reason_of("default/second");
}

TEST(Volumes, GangMembersSharingAReadWriteOncePodClaimCannotAllBePlaced) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  b.add(volume("shared", "10Gi", "local", {{"nfs", {{"server", "s"}, {"path", "/"}}}}));
  b.add(bound_claim("once", "shared", {"ReadWriteOncePod"}));
  b.queue("default", 0);
  b.group("g", "default", 2, 0);
  for (const char* name : {"g-0", "g-1"}) {
    json p = pod_with_claims(name, {"once"});
    p["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", "g"}};
    b.add(p);
  }
  b.group("solo", "default", 1, 0);
  for (const char* name : {"solo-0", "solo-1"}) {
    json p = pod_with_claims(name, {"once"});
    p["metadata"]["name"] = name;
    p["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", "solo"}};
    b.add(p);
  }
  auto run = b.run();
  EXPECT_EQ(run.bound_in("g"), 0);
  EXPECT_LE(run.bound_in("solo"), 1);
}

TEST(Volumes, OneStaticVolumeIsTakenByOneClaimOfTheCycle) {
  ScenarioBuilder b;
  three_nodes(b);
  b.add(storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"));
  b.add(local_volume("only", "n2"));
  b.add(claim("a", "local"));
  b.add(claim("b", "local"));
  b.add(pod_with_claims("pa", {"a"}));
  b.add(pod_with_claims("pb", {"b"}));
  auto run = b.run();
  const bool a = !run.node_of("default/pa").empty(), bb = !run.node_of("default/pb").empty();
  EXPECT_TRUE(a != bb) << run.report().dump();
  ASSERT_TRUE(run.report().contains("volume_bindings"));
  EXPECT_EQ(run.report()["volume_bindings"].size(), 1u);
}


}  // namespace
}  // namespace weft::scheduler::testing
