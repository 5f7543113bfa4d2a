// Builders for descheduler unit tests: nodes, pods and PodGroups as Kubernetes JSON, a
// Cluster from them, and load reports.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "descheduler/core/cluster.h"
#include "descheduler/core/load.h"
#include "descheduler/core/planner.h"
#include "descheduler/core/profiles.h"
#include "descheduler/core/policy.h"

namespace weft::descheduler::test {

using nlohmann::json;

inline json node(const std::string& name, std::map<std::string, std::string> labels = {}, const std::string& cpu = "16",
                 const std::string& memory = "64Gi", const std::string& pods = "110") {
  json n = {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", name}, {"labels", json::object()}}},
            {"status", {{"allocatable", {{"cpu", cpu}, {"memory", memory}, {"pods", pods}}}}}};
  for (const auto& [k, v] : labels) n["metadata"]["labels"][k] = v;
  return n;
}

struct PodSpec {
  std::string ns = "default";
  std::string cpu = "1";
  std::string memory = "2Gi";
  int priority = 0;
  std::string owner_kind = "ReplicaSet";
  std::string owner;          // "" = the pod's own name + "-rs"
  std::string group;          // PodGroup name
  bool pvc = false;
  bool local_storage = false;
  std::map<std::string, std::string> extra_requests;   // e.g. rdma/hca_ib: "1"
  std::map<std::string, std::string> node_selector;
};

inline json pod(const std::string& name, const std::string& node_name, const PodSpec& s = {}) {
  json requests = {{"cpu", s.cpu}, {"memory", s.memory}};
  for (const auto& [k, v] : s.extra_requests) requests[k] = v;
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", s.ns}}},
            {"spec",
             {{"nodeName", node_name},
              {"priority", s.priority},
              {"containers", json::array({{{"name", "c"}, {"image", "x"}, {"resources", {{"requests", requests}}}}})}}},
            {"status", {{"phase", "Running"}}}};
  if (!s.owner_kind.empty())
    p["metadata"]["ownerReferences"] = json::array(
        {{{"apiVersion", "apps/v1"}, {"kind", s.owner_kind}, {"name", s.owner.empty() ? name + "-rs" : s.owner},
          {"uid", "u-" + name}, {"controller", true}}});
  if (!s.group.empty()) p["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", s.group}};
  if (s.pvc) p["spec"]["volumes"] = json::array({{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "d"}}}}});
  if (s.local_storage) p["spec"]["volumes"] = json::array({{{"name", "tmp"}, {"emptyDir", json::object()}}});
  if (!s.node_selector.empty()) p["spec"]["nodeSelector"] = s.node_selector;
  return p;
}

inline json podgroup(const std::string& name, int min_member, const std::string& ns = "default",
                     std::map<std::string, std::string> annotations = {}, json network_topology = nullptr) {
  json g = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "PodGroup"},
            {"metadata", {{"name", name}, {"namespace", ns}, {"annotations", json::object()}}},
            {"spec", {{"minMember", min_member}}}};
  for (const auto& [k, v] : annotations) g["metadata"]["annotations"][k] = v;
  if (!network_topology.is_null()) g["spec"]["networkTopology"] = network_topology;
  return g;
}

inline Cluster build(const std::vector<json>& objects) {
  ClusterBuilder b;
  for (size_t i = 0; i < objects.size(); ++i) {
    auto s = b.add(objects[i], "object " + std::to_string(i));
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return b.finish();
}

inline TimePoint t0() { return parse_rfc3339("2026-11-23T10:00:00Z").value(); }

// name -> {cpu, memory} ratios measured at `at`.
inline LoadReport load(const std::map<std::string, std::pair<double, double>>& nodes, TimePoint at = t0()) {
  LoadReport r;
  r.source_name = "test";
  for (const auto& [n, v] : nodes) r.nodes[n] = LoadSample{v.first, v.second, at, at, "test"};
  return r;
}

// The seed's policy (thresholds 30/30, targets 80/85, priorityThreshold 10000, nodeFit,
// ignorePvcPods) with a one-minute window and no namespace exclusions.
inline Policy seed_policy() {
  Policy p = default_policy();
  p.profiles[0].load_aware.exclude_namespaces.clear();
  p.profiles[0].load_aware.metrics.window = Seconds(60);
  return p;
}

inline Plan plan(const Cluster& c, const LoadReport& l, const Policy& p, const DeschedulerState& s = {},
                 TimePoint now = t0()) {
  auto r = make_plan(c, l, p, s, PlanOptions{now, Seconds(300), Seconds(600)});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.message());
  return r.ok() ? *r : Plan{};
}

inline std::string reason_of(const Plan& p, const std::string& pod) {
  for (const auto& s : p.skipped)
    if (s.pod() == pod) return s.reason;
  for (const auto& e : p.evictions)
    if (e.pod() == pod) return "evicted";
  return "";
}

inline NodeClass class_of(const Plan& p, const std::string& node) {
  for (const auto& n : p.nodes)
    if (n.name == node) return n.cls;
  ADD_FAILURE() << node << " not in plan";
  return NodeClass::Unknown;
}

inline bool evicted(const Plan& p, const std::string& pod) {
  for (const auto& e : p.evictions)
    if (e.pod() == pod) return true;
  return false;
}

}  // namespace weft::descheduler::test
