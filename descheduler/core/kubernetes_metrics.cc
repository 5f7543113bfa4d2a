#include "descheduler/core/kubernetes_metrics.h"

#include "kube/json_field.h"
#include "kube/quantity.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;
using kube::json_at;

Result<TimePoint> timestamp_of(const json& obj) {
  const json& ts = json_at(obj, "timestamp");
  if (!ts.is_string()) return make_error("no timestamp");
  auto at = parse_rfc3339(ts.get<std::string>());
  if (!at) return make_error("timestamp: " + at.message());
  return *at;
}

Result<LoadSample> node_sample(const json& obj, const NodeInfo& node) {
  auto at = timestamp_of(obj);
  if (!at) return at.error();
  const json& usage = json_at(obj, "usage");
  auto cpu = usage_milli(usage, "cpu");
  if (!cpu) return cpu.error();
  auto memory = usage_milli(usage, "memory");
  if (!memory) return memory.error();
  auto alloc_cpu = node.allocatable.find("cpu");
  auto alloc_memory = node.allocatable.find("memory");
  if (alloc_cpu == node.allocatable.end() || alloc_cpu->second <= 0 || alloc_memory == node.allocatable.end() ||
      alloc_memory->second <= 0)
    return make_error("the node reports no allocatable cpu or memory");
  LoadSample s;
  s.cpu = static_cast<double>(*cpu) / static_cast<double>(alloc_cpu->second);
  s.memory = static_cast<double>(*memory) / static_cast<double>(alloc_memory->second);
  s.cpu_at = s.memory_at = *at;
  s.source = "metrics.k8s.io";
  return s;
}

void read_nodes(const json& list, const Cluster& cluster, LoadReport& report) {
  for (const json& obj : metrics_items(list)) {
    std::string name = kube::json_text(json_at(json_at(obj, "metadata"), "name"));
    auto idx = cluster.node_index.find(name);
    if (idx == cluster.node_index.end()) continue;   // not a node of this cluster (or nameless)
    auto sample = node_sample(obj, cluster.nodes[static_cast<size_t>(idx->second)]);
    if (sample) {
      report.nodes[name] = *sample;
      report.invalid.erase(name);
    } else if (!report.nodes.count(name)) {
      report.invalid[name] = "NodeMetrics " + name + ": " + sample.message();
    }
  }
}

// The containers' usage summed; nullopt when any container lacks the reading.
std::optional<double> pod_total(const json& containers, const char* resource) {
  if (!containers.is_array() || containers.empty()) return std::nullopt;
  double total = 0;
  for (const json& c : containers) {
    auto v = usage_milli(json_at(c, "usage"), resource);
    if (!v) return std::nullopt;
    total += kube::to_base_units(*v);
  }
  return total;
}

void read_pods(const json& list, LoadReport& report) {
  for (const json& obj : metrics_items(list)) {
    const json& meta = json_at(obj, "metadata");
    std::string ns = kube::json_text(json_at(meta, "namespace")), name = kube::json_text(json_at(meta, "name"));
    auto at = timestamp_of(obj);
    if (ns.empty() || name.empty() || !at) continue;   // undated usage is never used
    PodUsage u;
    const json& containers = json_at(obj, "containers");
    u.cpu_cores = pod_total(containers, "cpu");
    u.memory_bytes = pod_total(containers, "memory");
    if (u.cpu_cores) u.cpu_at = *at;
    if (u.memory_bytes) u.memory_at = *at;
    if (u.cpu_cores || u.memory_bytes) report.pods[ns + "/" + name] = u;
  }
}

}  // namespace

const json& metrics_items(const json& list) {
  static const json empty = json::array();
  if (list.is_array()) return list;
  const json& items = json_at(list, "items");
  return items.is_array() ? items : empty;
}

Result<int64_t> usage_milli(const json& usage, const char* resource) {
  const json& q = json_at(usage, resource);
  if (q.is_null()) return make_error(std::string("no usage.") + resource);
  auto v = kube::parse_quantity_milli(q);
  if (!v) return make_error(std::string("usage.") + resource + ": " + v.message());
  return *v;
}

LoadReport load_from_kubernetes_metrics(const json& node_metrics, const json& pod_metrics, const Cluster& cluster,
                                        const std::string& source_name) {
  LoadReport report;
  report.source_name = source_name;
  read_nodes(node_metrics, cluster, report);
  read_pods(pod_metrics, report);
  return report;
}

}  // namespace weft::descheduler
