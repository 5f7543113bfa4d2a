// The storage kinds through kube-lite's registry: PersistentVolumes, claims (+status),
// StorageClasses, CSINodes and CSIDrivers with the real API's defaults, required fields,
// immutable fields, versions and the DefaultStorageClass admission plugin.
#include <gtest/gtest.h>

#include "tools/kube-lite/registry.h"
#include "tools/kube-lite/storage.h"

namespace weft::kube_lite {
namespace {

using nlohmann::json;

class StorageTest : public ::testing::Test {
 protected:
  const ResourceType& type(const std::string& group, const std::string& plural) {
    return *types.find(group, "v1", plural);
  }
  const ResourceType& pvs() { return type("", "persistentvolumes"); }
  const ResourceType& pvcs() { return type("", "persistentvolumeclaims"); }
  const ResourceType& classes() { return type("storage.k8s.io", "storageclasses"); }
  const ResourceType& csinodes() { return type("storage.k8s.io", "csinodes"); }
  const ResourceType& csidrivers() { return type("storage.k8s.io", "csidrivers"); }
  json body(const Reply& r) { return json::parse(r.body_text()); }
  static json local_pv(const std::string& name, const std::string& node) {
    return json::parse(R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":")" + name + R"("},
      "spec":{"capacity":{"storage":"10Gi"},"accessModes":["ReadWriteOnce"],"storageClassName":"local",
      "local":{"path":"/mnt/disk"},"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[
      {"key":"kubernetes.io/hostname","operator":"In","values":[")" + node + R"("]}]}]}}}})");
  }
  static json claim(const std::string& name) {
    return json::parse(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":")" + name + R"("},
      "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
  }
  Reply merge(const ResourceType& t, const std::string& ns, const std::string& name, const std::string& patch,
              const std::string& sub = "") {
    return reg.patch(admin, t, ns, name, sub, "application/merge-patch+json", patch, false);
  }

  ResourceTypes types;
  Store store{types.all().size(), 1000};
  Registry reg{types, store};
  User admin{"", {}, {}, std::nullopt, true};
};

TEST_F(StorageTest, PersistentVolumeIsClusterScopedWithDefaultsAndPendingPhase) {
  auto r = reg.create(admin, pvs(), "", local_pv("pv1", "n1"), false);
  ASSERT_EQ(r.status, 201) << r.body_text();
  json pv = body(r);
  EXPECT_FALSE(pv["metadata"].contains("namespace"));
  EXPECT_EQ(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
  EXPECT_EQ(pv["spec"]["volumeMode"], "Filesystem");
  EXPECT_EQ(pv["status"]["phase"], "Pending");
  EXPECT_FALSE(pv["metadata"]["resourceVersion"].get<std::string>().empty());
  // The status subresource: a main write keeps status, a status write keeps the rest.
  auto s = merge(pvs(), "", "pv1", R"({"status":{"phase":"Available"}})", "status");
  ASSERT_EQ(s.status, 200) << s.body_text();
  EXPECT_EQ(body(s)["status"]["phase"], "Available");
  auto m = merge(pvs(), "", "pv1", R"({"metadata":{"labels":{"a":"b"}},"status":{"phase":"Failed"}})");
  ASSERT_EQ(m.status, 200) << m.body_text();
  EXPECT_EQ(body(m)["status"]["phase"], "Available");
  EXPECT_EQ(body(m)["metadata"]["labels"]["a"], "b");
}

TEST_F(StorageTest, PersistentVolumeRequiredFieldsAsTheRealApiNamesThem) {
  json pv = {{"apiVersion", "v1"}, {"kind", "PersistentVolume"}, {"metadata", {{"name", "bad"}}}, {"spec", json::object()}};
  auto r = reg.create(admin, pvs(), "", pv, false);
  ASSERT_EQ(r.status, 422);
  EXPECT_EQ(body(r)["reason"], "Invalid");
  EXPECT_EQ(body(r)["message"],
            "PersistentVolume \"bad\" is invalid: [spec.capacity: Required value, spec.accessModes: Required value, "
            "spec: Required value: must specify a volume type]");
  json local = local_pv("l", "n1");
  local["spec"].erase("nodeAffinity");
  EXPECT_EQ(body(reg.create(admin, pvs(), "", local, false))["message"],
            "PersistentVolume \"l\" is invalid: spec.nodeAffinity: Required value: Local volume requires node affinity");
  json two = local_pv("two", "n1");
  two["spec"]["hostPath"] = {{"path", "/x"}};
  EXPECT_EQ(body(reg.create(admin, pvs(), "", two, false))["message"],
            "PersistentVolume \"two\" is invalid: spec.local: Forbidden: may not specify more than 1 volume type");
  json rwop = local_pv("rwop", "n1");
  rwop["spec"]["accessModes"] = {"ReadWriteOncePod", "ReadWriteOnce"};
  EXPECT_EQ(body(reg.create(admin, pvs(), "", rwop, false))["message"],
            "PersistentVolume \"rwop\" is invalid: spec.accessModes: Forbidden: may not use ReadWriteOncePod with "
            "other access modes");
}

TEST_F(StorageTest, PersistentVolumeSourceAndNodeAffinityAreImmutable) {
  ASSERT_EQ(reg.create(admin, pvs(), "", local_pv("pv1", "n1"), false).status, 201);
  auto r = merge(pvs(), "", "pv1",
                 R"({"spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["n2"]}]}]}}}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(body(r)["message"].get<std::string>().find("nodeAffinity: Invalid value"), std::string::npos);
  r = merge(pvs(), "", "pv1", R"({"spec":{"local":{"path":"/other"}}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(body(r)["message"].get<std::string>().find("spec.persistentvolumesource is immutable"), std::string::npos);
  // Capacity and the claim reference may change (binding, resizing).
  r = merge(pvs(), "", "pv1", R"({"spec":{"claimRef":{"namespace":"default","name":"c"},"capacity":{"storage":"20Gi"}}})");
  EXPECT_EQ(r.status, 200) << r.body_text();
}

TEST_F(StorageTest, ClaimDefaultsToTheDefaultStorageClassAndIsImmutableButForItsRequest) {
  json fast = {{"apiVersion", "storage.k8s.io/v1"}, {"kind", "StorageClass"},
               {"metadata", {{"name", "fast"}, {"annotations", {{kDefaultClassAnnotation, "true"}}}}},
               {"provisioner", "csi.example.com"}};
  auto c = reg.create(admin, classes(), "", fast, false);
  ASSERT_EQ(c.status, 201) << c.body_text();
  EXPECT_EQ(body(c)["volumeBindingMode"], "Immediate");
  EXPECT_EQ(body(c)["reclaimPolicy"], "Delete");
  auto r = reg.create(admin, pvcs(), "default", claim("data"), false);
  ASSERT_EQ(r.status, 201) << r.body_text();
  EXPECT_EQ(body(r)["spec"]["storageClassName"], "fast");
  EXPECT_EQ(body(r)["status"]["phase"], "Pending");
  json explicit_empty = claim("none");
  explicit_empty["spec"]["storageClassName"] = "";
  EXPECT_EQ(body(reg.create(admin, pvcs(), "default", explicit_empty, false))["spec"]["storageClassName"], "");
  // The PV controller's writes: volumeName once, then status.
  EXPECT_EQ(merge(pvcs(), "default", "data", R"({"spec":{"volumeName":"pv1"}})").status, 200);
  auto again = merge(pvcs(), "default", "data", R"({"spec":{"volumeName":"pv2"}})");
  EXPECT_EQ(again.status, 422);
  EXPECT_EQ(body(again)["message"],
            "PersistentVolumeClaim \"data\" is invalid: spec: Forbidden: spec is immutable after creation except "
            "resources.requests and volumeAttributesClassName for bound claims");
  EXPECT_EQ(merge(pvcs(), "default", "data", R"({"spec":{"accessModes":["ReadWriteMany"]}})").status, 422);
  // Expansion only for a bound claim.
  EXPECT_EQ(merge(pvcs(), "default", "data", R"({"spec":{"resources":{"requests":{"storage":"2Gi"}}}})").status, 422);
  ASSERT_EQ(merge(pvcs(), "default", "data", R"({"status":{"phase":"Bound"}})", "status").status, 200);
  EXPECT_EQ(merge(pvcs(), "default", "data", R"({"spec":{"resources":{"requests":{"storage":"2Gi"}}}})").status, 200);
  auto shrink = merge(pvcs(), "default", "data", R"({"spec":{"resources":{"requests":{"storage":"1Gi"}}}})");
  EXPECT_EQ(shrink.status, 422);
  // Annotations (kube-scheduler's selected-node) are not the spec.
  EXPECT_EQ(merge(pvcs(), "default", "data",
                  R"({"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"n1"}}})").status, 200);
  json bad = claim("bad");
  bad["spec"].erase("accessModes");
  bad["spec"].erase("resources");
  EXPECT_EQ(body(reg.create(admin, pvcs(), "default", bad, false))["message"],
            "PersistentVolumeClaim \"bad\" is invalid: [spec.accessModes: Required value: at least 1 access mode is "
            "required, spec.resources[storage]: Required value]");
  EXPECT_EQ(reg.create(admin, pvcs(), "missing", claim("x"), false).status, 404);
}

TEST_F(StorageTest, StorageClassFieldsAreImmutable) {
  json wffc = {{"apiVersion", "storage.k8s.io/v1"}, {"kind", "StorageClass"}, {"metadata", {{"name", "local"}}},
               {"provisioner", "kubernetes.io/no-provisioner"}, {"volumeBindingMode", "WaitForFirstConsumer"}};
  ASSERT_EQ(reg.create(admin, classes(), "", wffc, false).status, 201);
  auto r = merge(classes(), "", "local", R"({"volumeBindingMode":"Immediate"})");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(body(r)["message"],
            "StorageClass \"local\" is invalid: volumeBindingMode: Invalid value: \"Immediate\": field is immutable");
  EXPECT_EQ(body(merge(classes(), "", "local", R"({"provisioner":"other"})"))["message"],
            "StorageClass \"local\" is invalid: provisioner: Forbidden: updates to provisioner are forbidden.");
  EXPECT_EQ(merge(classes(), "", "local", R"({"metadata":{"labels":{"x":"y"}}})").status, 200);
  json bad = {{"apiVersion", "storage.k8s.io/v1"}, {"kind", "StorageClass"}, {"metadata", {{"name", "b"}}},
              {"provisioner", "p"}, {"volumeBindingMode", "Later"}};
  EXPECT_EQ(body(reg.create(admin, classes(), "", bad, false))["message"],
            "StorageClass \"b\" is invalid: volumeBindingMode: Unsupported value: \"Later\": supported values: "
            "\"Immediate\", \"WaitForFirstConsumer\"");
}

TEST_F(StorageTest, CSINodeAndCSIDriver) {
  json node = json::parse(R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n1"},
    "spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-1","allocatable":{"count":2}}]}})");
  ASSERT_EQ(reg.create(admin, csinodes(), "", node, false).status, 201);
  auto r = merge(csinodes(), "", "n1", R"({"spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-1","allocatable":{"count":3}}]}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(body(r)["message"].get<std::string>().find("spec.drivers[0].allocatable: Invalid value"), std::string::npos);
  json dup = node;
  dup["metadata"]["name"] = "n2";
  dup["spec"]["drivers"].push_back({{"name", "ebs.csi.aws.com"}, {"nodeID", "x"}});
  EXPECT_EQ(body(reg.create(admin, csinodes(), "", dup, false))["message"],
            "CSINode \"n2\" is invalid: spec.drivers[1].name: Duplicate value: \"ebs.csi.aws.com\"");
  json driver = {{"apiVersion", "storage.k8s.io/v1"}, {"kind", "CSIDriver"}, {"metadata", {{"name", "ebs.csi.aws.com"}}},
                 {"spec", json::object()}};
  auto d = reg.create(admin, csidrivers(), "", driver, false);
  ASSERT_EQ(d.status, 201);
  EXPECT_EQ(body(d)["spec"]["attachRequired"], true);
  EXPECT_EQ(body(d)["spec"]["volumeLifecycleModes"], json::array({"Persistent"}));
  EXPECT_EQ(merge(csidrivers(), "", "ebs.csi.aws.com", R"({"spec":{"attachRequired":false}})").status, 422);
}

}  // namespace
}  // namespace weft::kube_lite
