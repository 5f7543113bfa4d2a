#include "descheduler/core/node_usage_average.h"

#include <cmath>

#include "descheduler/core/kubernetes_metrics.h"
#include "kube/json_field.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

constexpr double kBeta = 0.9;   // the weight of the average so far (upstream's beta)

int64_t weighted(int64_t average, int64_t reading) {
  return static_cast<int64_t>(std::llround(kBeta * static_cast<double>(average) + (1 - kBeta) * static_cast<double>(reading)));
}

}  // namespace

void NodeUsageAverage::add(const json& node_metrics) {
  for (const json& obj : metrics_items(node_metrics)) {
    const std::string name = kube::json_text(kube::json_at(kube::json_at(obj, "metadata"), "name"));
    auto cpu = usage_milli(kube::json_at(obj, "usage"), "cpu");
    auto memory = usage_milli(kube::json_at(obj, "usage"), "memory");
    const json& timestamp = kube::json_at(obj, "timestamp");
    if (name.empty() || !cpu || !memory || !timestamp.is_string()) continue;
    const int64_t memory_bytes = (*memory + 999) / 1000;   // whole bytes, rounded up as Quantity.Value()
    auto [it, first] = nodes_.try_emplace(name);
    Average& a = it->second;
    a.cpu_milli = first ? *cpu : weighted(a.cpu_milli, *cpu);
    a.memory_bytes = first ? memory_bytes : weighted(a.memory_bytes, memory_bytes);
    a.timestamp = timestamp.get<std::string>();
    a.window = kube::json_text(kube::json_at(obj, "window"));
    synced_ = true;
  }
}

json NodeUsageAverage::node_metrics() const {
  json items = json::array();
  for (const auto& [name, a] : nodes_) {
    json obj = {{"apiVersion", "metrics.k8s.io/v1beta1"},
                {"kind", "NodeMetrics"},
                {"metadata", {{"name", name}}},
                {"timestamp", a.timestamp},
                {"usage", {{"cpu", std::to_string(a.cpu_milli) + "m"}, {"memory", std::to_string(a.memory_bytes)}}}};
    if (!a.window.empty()) obj["window"] = a.window;
    items.push_back(std::move(obj));
  }
  return {{"items", std::move(items)}};
}

}  // namespace weft::descheduler
