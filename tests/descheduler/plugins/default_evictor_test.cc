// DefaultEvictor: rows of the Kubernetes descheduler's defaultevictor_test.go that weft
// refused before as facts — noEvictionPolicy, podProtections' PodsWithResourceClaims and
// PodsWithPVC's protectedStorageClasses (Filter), namespaceLabelSelector (PreEvictionFilter).
#include <gtest/gtest.h>

#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

int index_of(const Cluster& c, const std::string& name) {
  for (size_t i = 0; i < c.pods.size(); ++i)
    if (c.pods[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << name << " not in the cluster";
  return -1;
}

// "" when the evictor's Filter and PreEvictionFilter (no target named) let `name` go.
std::string verdict(const std::vector<json>& objects, const EvictorArgs& args, const std::string& name) {
  std::vector<json> all = {node("n1"), node("n2")};
  all.insert(all.end(), objects.begin(), objects.end());
  Cluster c = build(all);
  EvictorHandle h(c, args, {});
  const int pod = index_of(c, name);
  if (std::string why = h.evictor().filter(pod); !why.empty()) return why;
  return h.evictor().pre_eviction_filter(pod);
}

json annotated(json p, const std::string& key) {
  p["metadata"]["annotations"][key] = "";
  return p;
}

TEST(DefaultEvictor, NoEvictionPolicy) {
  const json p = annotated(pod("p1", "n1"), "descheduler.alpha.kubernetes.io/prefer-no-eviction");
  EXPECT_EQ(verdict({p}, {}, "p1"), "");   // Preferred (default): the pod may still go
  EvictorArgs mandatory;
  mandatory.no_eviction_mandatory = true;
  EXPECT_EQ(verdict({p}, mandatory, "p1"), "prefer-no-eviction");
  EXPECT_EQ(verdict({pod("p2", "n1")}, mandatory, "p2"), "");
  // The evict annotation lifts it, as every DefaultEvictor rule.
  EXPECT_EQ(verdict({annotated(p, "descheduler.alpha.kubernetes.io/evict")}, mandatory, "p1"), "");
}

TEST(DefaultEvictor, PodsWithResourceClaims) {
  json p = pod("p1", "n1");
  p["spec"]["resourceClaims"] = json::array({{{"name", "gpu"}, {"resourceClaimName", "gpu-claim"}}});
  EXPECT_EQ(verdict({p}, {}, "p1"), "");
  EvictorArgs protect;
  protect.protect_resource_claims = true;
  EXPECT_EQ(verdict({p}, protect, "p1"), "resource-claims");
  EXPECT_EQ(verdict({pod("p2", "n1")}, protect, "p2"), "");
}

json claim(const std::string& name, const std::string& storage_class) {
  json c = {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  if (!storage_class.empty()) c["spec"]["storageClassName"] = storage_class;
  return c;
}

json with_claims(json p, const std::vector<std::string>& claims) {
  p["spec"]["volumes"] = json::array();
  for (const auto& c : claims)
    p["spec"]["volumes"].push_back({{"name", c}, {"persistentVolumeClaim", {{"claimName", c}}}});
  return p;
}

TEST(DefaultEvictor, ProtectedStorageClasses) {
  EvictorArgs args;
  args.ignore_pvc_pods = true;   // PodsWithPVC in extraEnabled
  args.protected_storage_classes = {"protected"};
  const std::vector<json> claims = {claim("fast", "protected"), claim("slow", "standard")};
  auto check = [&](const std::vector<std::string>& names) {
    std::vector<json> objs = claims;
    objs.push_back(with_claims(pod("p1", "n1"), names));
    return verdict(objs, args, "p1");
  };
  EXPECT_EQ(check({"fast"}), "pvc");            // using a protected class
  EXPECT_EQ(check({"slow"}), "");               // an unprotected class: evicted
  EXPECT_EQ(check({"missing"}), "pvc");         // the claim cannot be read: protected
  EXPECT_EQ(check({"slow", "fast"}), "pvc");    // protected and unprotected: protected
  // With no class listed every pod with a claim is protected.
  args.protected_storage_classes.clear();
  EXPECT_EQ(check({"slow"}), "pvc");
}

json ns_object(const std::string& name, const std::map<std::string, std::string>& labels) {
  json n = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}, {"labels", json::object()}}}};
  for (const auto& [k, v] : labels) n["metadata"]["labels"][k] = v;
  return n;
}

TEST(DefaultEvictor, NamespaceLabelSelector) {
  EvictorArgs args;
  args.namespace_label_selector = kube::LabelSelector::parse("team=a").value();
  const std::vector<json> objs = {ns_object("ns-a", {{"team", "a"}}), ns_object("ns-b", {{"team", "b"}}),
                                  pod("pa", "n1", {.ns = "ns-a"}), pod("pb", "n1", {.ns = "ns-b"}),
                                  pod("pc", "n1", {.ns = "unlisted"})};
  EXPECT_EQ(verdict(objs, args, "pa"), "");
  EXPECT_EQ(verdict(objs, args, "pb"), "namespace-label-selector");
  EXPECT_EQ(verdict(objs, args, "pc"), "namespace-label-selector");
  EXPECT_EQ(verdict(objs, {}, "pb"), "");
}

}  // namespace
}  // namespace weft::descheduler::test
