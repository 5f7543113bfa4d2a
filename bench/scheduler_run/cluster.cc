#include "bench/scheduler_run/cluster.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "common/keys.h"

namespace weft::bench {

using nlohmann::json;

namespace {
constexpr const char* kNamespace = "bench";

std::string hex(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%06x", v);
  return buf;
}

std::string now_rfc3339() {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
}  // namespace

std::string node_name(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gpu-%05d", i);
  return buf;
}

json make_gpu_node(const ClusterShape& s, int i, const std::string& load_at) {
  const int leaf = i / s.nodes_per_leaf, spine = leaf / s.leaves_per_spine;
  const int fabric = i * s.fabrics / s.nodes;
  json resources = {{"cpu", s.node_cpu},
                    {"memory", s.node_memory},
                    {"nvidia.com/gpu", std::to_string(s.node_gpus)},
                    {"pods", "110"}};
  json load = {{"cpu", 0.2 + 0.6 * ((i * 37) % 100) / 100.0},
               {"memory", 0.3},
               {"window_s", 30},
               {"source", "bench"},
               {"at", load_at}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", node_name(i)},
            {"labels",
             {{"kubernetes.io/hostname", node_name(i)},
              {"node.kubernetes.io/instance-type", "hgx-h100-8"},
              {keys::kRdma, "ib"},
              {keys::kFabric, hex(0xfe8000 + fabric)},
              {keys::kSpine, hex(spine)},
              {keys::kLeaf, hex(leaf)}}},
            {"annotations", {{keys::kLoadAnnotation, load.dump()}}}}},
          {"spec", json::object()},
          {"status",
           {{"capacity", resources},
            {"allocatable", resources},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json make_running_pod(const ClusterShape& s, int i) {
  char name[32];
  std::snprintf(name, sizeof name, "running-%06d", i);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", kNamespace}, {"labels", {{"app", "running"}}}}},
          {"spec",
           {{"schedulerName", s.scheduler_name},
            {"nodeName", node_name(i % s.nodes)},
            {"containers",
             json::array({{{"name", "main"},
                           {"image", "registry.example.com/svc:v1"},
                           {"resources", {{"requests", {{"cpu", "1"}, {"memory", "4Gi"}}}}}}})}}},
          {"status", {{"phase", "Running"}}}};
}

json make_pending_pod(const ClusterShape& s, const std::string& name, const std::string& group) {
  json meta = {{"name", name}, {"namespace", kNamespace}, {"labels", {{"app", group.empty() ? "single" : "gang"}}}};
  if (!group.empty()) meta["annotations"] = {{keys::kGroupAnnotation, group}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", meta},
          {"spec",
           {{"schedulerName", s.scheduler_name},
            {"containers",
             json::array({{{"name", "main"},
                           {"image", "registry.example.com/train:v1"},
                           {"resources",
                            {{"requests", {{"cpu", "8"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "1"}}},
                             {"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}}};
}

json make_gang(const std::string& name, int min_member) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", kNamespace}, {"annotations", {{keys::kIbClusterAnnotation, "same"}}}}},
          {"spec", {{"minMember", min_member}, {"queue", "default"}}}};
}

void write_state(const ClusterShape& s, const std::string& path) {
  std::ofstream out(path);
  out << "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
  out << json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNamespace}}}}.dump();
  const std::string at = now_rfc3339();
  for (int i = 0; i < s.nodes; ++i) out << ',' << make_gpu_node(s, i, at).dump();
  for (int i = 0; i < s.running_pods; ++i) out << ',' << make_running_pod(s, i).dump();
  out << "]}\n";
}

}  // namespace weft::bench
