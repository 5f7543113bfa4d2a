#include "bench/native_gang/cases.h"

#include <cstdio>
#include <fstream>
#include <set>

#include "common/keys.h"

namespace weft::bench {

using nlohmann::json;

namespace {

constexpr const char* kNamespace = "bench";
constexpr const char* kWorkloadVersion = "scheduling.k8s.io/v1beta1";
constexpr const char* kCompositeVersion = "scheduling.k8s.io/v1alpha3";
constexpr const char* kRankLabel = "batch.kubernetes.io/job-completion-index";

std::string kube_name(const json& o) { return o["metadata"]["name"].get<std::string>(); }

std::string numbered(const char* format, int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, i);
  return buf;
}


json pod(const std::string& name, const json& labels, const json& spec_fields, const json& requests) {
  json spec = spec_fields;
  spec["terminationGracePeriodSeconds"] = 0;
  spec["containers"] = json::array(
      {{{"name", "main"}, {"image", "registry.k8s.io/pause:3.10.1"}, {"resources", {{"requests", requests}}}}});
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", kNamespace}, {"labels", labels}}},
          {"spec", spec}};
}

json podgroup(const GroupSpec& g, const std::string& parent, int priority) {
  json spec = {{"schedulingPolicy", {{"gang", {{"minCount", g.min_count}}}}}};
  if (!parent.empty()) spec["parentCompositePodGroupName"] = parent;
  if (!g.topology_key.empty()) spec["schedulingConstraints"] = {{"topology", json::array({{{"key", g.topology_key}}})}};
  if (priority) spec["priority"] = priority;
  return {{"apiVersion", kWorkloadVersion},
          {"kind", "PodGroup"},
          {"metadata", {{"name", g.name}, {"namespace", kNamespace}}},
          {"spec", spec}};
}

// --- the 4,096-pod gang -------------------------------------------------------------

json gpu_resources() {
  return {{"cpu", "192"}, {"memory", "2Ti"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}};
}

json eight_gpus() { return {{"cpu", "96"}, {"memory", "1Ti"}, {"nvidia.com/gpu", "8"}}; }

}  // namespace

json ready_node(const std::string& name, json labels, const json& resources) {
  labels["kubernetes.io/hostname"] = name;
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", json::object()},
          {"status",
           {{"capacity", resources},
            {"allocatable", resources},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

Case big_gang(const BigGangShape& s, const std::string& scheduler) {
  Case c;
  c.name = "one gang of " + std::to_string(s.gang) + " pods x 8 GPUs, " + std::to_string(s.nodes) + " nodes";
  c.label = "trainer";
  c.rank_label = kRankLabel;
  c.leaf_label = keys::kLeaf;
  for (int i = 0; i < s.nodes; ++i) {
    const int leaf = i / s.nodes_per_leaf, spine = leaf / s.leaves_per_spine, fabric = i * s.fabrics / s.nodes;
    json labels = {{keys::kFabric, numbered("fabric-%d", fabric)},
                   {keys::kSpine, numbered("spine-%03d", spine)},
                   {keys::kLeaf, numbered("leaf-%04d", leaf)},
                   {keys::kRdma, "ib"}};
    c.nodes.push_back(ready_node(numbered("gpu-%05d", i), labels, gpu_resources()));
  }
  for (int i = 0; i < s.busy_nodes && i < s.nodes; ++i) {
    json p = pod(numbered("busy-%05d", i), {{"app", "busy"}},
                 {{"schedulerName", scheduler}, {"nodeName", numbered("gpu-%05d", i)}}, eight_gpus());
    p["status"] = {{"phase", "Running"}};
    c.running_pods.push_back(std::move(p));
  }
  JobSpec job;
  GroupSpec g{.name = "trainer", .min_count = s.gang, .topology_key = keys::kFabric, .pods = {}};
  for (int i = 0; i < s.gang; ++i) {
    const std::string name = numbered("trainer-%04d", i);
    g.pods.push_back(name);
    c.pods.push_back(pod(name, {{"app", c.label}, {kRankLabel, std::to_string(i)}},
                         {{"schedulerName", scheduler}, {"schedulingGroup", {{"podGroupName", "trainer"}}}},
                         eight_gpus()));
  }
  c.group_objects.push_back(podgroup(g, "", 0));
  job.groups.push_back(std::move(g));
  c.jobs.push_back(std::move(job));
  return c;
}

Case big_subgroups(const BigGangShape& s, const std::string& scheduler, int partition) {
  Case c = big_gang(s, scheduler);
  c.name = "one Volcano gang of " + std::to_string(s.gang) + " pods x 8 GPUs in sub-groups of " +
           std::to_string(partition) + ", " + std::to_string(s.nodes) + " nodes";
  c.label = "partitioned";
  const json leaf_tier = {{"mode", "hard"}, {"highestTierAllowed", 1}};
  c.group_objects = {{{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                      {"kind", "PodGroup"},
                      {"metadata", {{"name", "tp"}, {"namespace", kNamespace}}},
                      {"spec",
                       {{"minMember", s.gang},
                        {"queue", "default"},
                        {"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 3}}},
                        {"subGroupPolicy", json::array({{{"name", "tp"},
                                                         {"subGroupSize", partition},
                                                         {"minSubGroups", s.gang / partition},
                                                         {"matchLabelKeys", json::array({"volcano.sh/partition-id"})},
                                                         {"networkTopology", leaf_tier}}})}}}}};
  JobSpec job{.name = "tp", .min_groups = s.gang / partition, .topology_key = keys::kFabric, .groups = {}};
  for (int i = 0; i < s.gang; ++i) {
    json& p = c.pods[i];
    p["metadata"]["labels"]["app"] = c.label;
    p["metadata"]["labels"]["volcano.sh/partition-id"] = std::to_string(i / partition);
    p["metadata"]["annotations"] = {{keys::kGroupAnnotation, "tp"}};
    p["spec"].erase("schedulingGroup");
    if (i % partition == 0)
      job.groups.push_back({.name = numbered("tp-%d", i / partition), .min_count = partition,
                            .topology_key = keys::kLeaf, .pods = {}});
    job.groups.back().pods.push_back(kube_name(p));
  }
  c.jobs = {std::move(job)};
  return c;
}

// --- scheduler_perf's CompositePodGroup workloads ------------------------------------

namespace {

struct PerfParams {
  const char* test;
  const char* workload;
  int nodes, cpgs, groups_per_cpg, min_group_count, min_count, pods_per_group;
};

// test/integration/scheduler_perf/cpg/performance-config.yaml, the 5,000-node workloads.
const std::vector<PerfParams>& perf_params() {
  static const std::vector<PerfParams> all{
      {"CPGGangScheduling", "5000Nodes_500CPGs_1000Groups_3000Pods", 5000, 500, 2, 2, 3, 3},
      {"CPGGangScheduling", "5000Nodes_1000CPGs_2000Groups_6000Pods", 5000, 1000, 2, 2, 3, 3},
      {"CPGGangScheduling", "5000Nodes_1500CPGs_3000Groups_9000Pods", 5000, 1500, 2, 2, 3, 3},
      {"CPGGangScheduling", "5000Nodes_3CPGs_6Groups_3000Pods", 5000, 3, 2, 2, 500, 500},
      {"CPGGangScheduling", "5000Nodes_3CPGs_6Groups_6000Pods", 5000, 3, 2, 2, 1000, 1000},
      {"CPGGangScheduling", "5000Nodes_3CPGs_6Groups_9000Pods", 5000, 3, 2, 2, 1500, 1500},
      {"CPGTopologyAwareScheduling", "5000Nodes_500CPGs_1000Groups_4000Pods", 5000, 500, 2, 2, 4, 4},
      {"CPGTopologyAwareScheduling", "5000Nodes_1000CPGs_2000Groups_8000Pods", 5000, 1000, 2, 2, 4, 4},
      {"CPGTopologyAwareScheduling", "5000Nodes_1500CPGs_3000Groups_12000Pods", 5000, 1500, 2, 2, 4, 4},
      {"CPGTopologyAwareScheduling", "5000Nodes_3CPGs_6Groups_3000Pods", 5000, 3, 2, 2, 500, 500},
      {"CPGTopologyAwareScheduling", "5000Nodes_3CPGs_6Groups_6000Pods", 5000, 3, 2, 2, 1000, 1000},
      {"CPGTopologyAwareScheduling", "5000Nodes_3CPGs_6Groups_9000Pods", 5000, 3, 2, 2, 1500, 1500}};
  return all;
}

// scheduler_perf's default node and templates/tas-node.yaml (zone of 1,000 nodes, rack of 100).
json perf_node(int i, bool topology) {
  json labels = json::object();
  if (topology) {
    labels["topology.kubernetes.io/zone"] = numbered("zone-%d", i / 1000);
    labels["topology.kubernetes.io/rack"] = numbered("rack-%d", i / 100);
  }
  return ready_node(numbered("node-%d", i), labels, {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}});
}

}  // namespace

std::vector<std::string> scheduler_perf_cases() {
  std::vector<std::string> names;
  for (const auto& p : perf_params()) names.push_back(std::string(p.test) + "/" + p.workload);
  return names;
}

Case scheduler_perf_case(const std::string& name, const std::string& scheduler) {
  Case c;
  const PerfParams* p = nullptr;
  for (const auto& q : perf_params())
    if (name == std::string(q.test) + "/" + q.workload) p = &q;
  if (!p) return c;
  const bool tas = std::string(p->test) == "CPGTopologyAwareScheduling";
  const int priority = tas ? 0 : 1000;   // cpg-gang/podgroup-gang/gang-pod carry priority 1000; TAS none
  c.name = name;
  c.label = tas ? "cpg-tas" : "cpg-gang";
  for (int i = 0; i < p->nodes; ++i) c.nodes.push_back(perf_node(i, tas));
  for (int k = 0; k < p->cpgs; ++k) {
    JobSpec job{.name = numbered("cpg-%d", k), .min_groups = p->min_group_count,
                .topology_key = tas ? "topology.kubernetes.io/zone" : "", .groups = {}};
    json spec = {{"workloadRef", {{"workloadName", numbered("test-wl-%d", k)}, {"templateName", "cpg-template"}}},
                 {"schedulingPolicy", {{"gang", {{"minGroupCount", p->min_group_count}}}}}};
    if (tas) spec["schedulingConstraints"] = {{"topology", json::array({{{"key", job.topology_key}}})}};
    if (priority) spec["priority"] = priority;
    c.group_objects.push_back({{"apiVersion", kCompositeVersion},
                               {"kind", "CompositePodGroup"},
                               {"metadata", {{"name", job.name}, {"namespace", kNamespace}}},
                               {"spec", spec}});
    c.jobs.push_back(std::move(job));
  }
  const int groups = p->cpgs * p->groups_per_cpg;
  int pod_index = 0;
  for (int g = 0; g < groups; ++g) {
    const int k = g / p->groups_per_cpg;
    GroupSpec group{.name = numbered("gang-group-%d", g), .min_count = p->min_count,
                    .topology_key = tas ? "topology.kubernetes.io/rack" : "", .pods = {}};
    json pg = podgroup(group, numbered("cpg-%d", k), priority);
    pg["spec"]["workloadRef"] = {{"workloadName", numbered("test-wl-%d", k)}, {"templateName", "pg-template"}};
    c.group_objects.push_back(std::move(pg));
    json spec = {{"schedulerName", scheduler}, {"schedulingGroup", {{"podGroupName", group.name}}}};
    if (priority) spec["priority"] = priority;
    for (int m = 0; m < p->pods_per_group; ++m, ++pod_index) {
      const std::string pod_name = numbered(tas ? "test-cpg-tas-pod-%d" : "test-cpg-gang-pod-%d", pod_index);
      group.pods.push_back(pod_name);
      c.pods.push_back(pod(pod_name, {{"app", c.label}}, spec, {{"cpu", "100m"}, {"memory", "100Mi"}}));
    }
    c.jobs[k].groups.push_back(std::move(group));
  }
  return c;
}

void write_case_state(const Case& c, const std::string& path) {
  std::ofstream out(path);
  out << "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
  std::set<std::string> namespaces{c.ns};
  for (const auto* objects : {&c.running_pods, &c.pods, &c.group_objects})
    for (const auto& o : *objects) namespaces.insert(o["metadata"].value("namespace", c.ns));
  const char* comma = "";
  for (const auto& ns : namespaces) {
    out << comma << json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}.dump();
    comma = ",";
  }
  for (const auto& n : c.nodes) out << ',' << n.dump();
  for (const auto& p : c.running_pods) out << ',' << p.dump();
  out << "]}\n";
}

}  // namespace weft::bench
