#include "descheduler/core/node_usage_average.h"

#include <cmath>
#include <optional>

#include "kube/json_field.h"
#include "kube/quantity.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

constexpr double kBeta = 0.9;   // the weight of the average so far (upstream's beta)

int64_t weighted(int64_t average, int64_t reading) {
  return static_cast<int64_t>(std::llround(kBeta * static_cast<double>(average) + (1 - kBeta) * static_cast<double>(reading)));
}

std::optional<int64_t> milli_of(const json& usage, const char* resource) {
  if (!usage.is_object() || !usage.contains(resource)) return std::nullopt;
  auto v = kube::parse_quantity_milli(usage[resource]);
  if (!v) return std::nullopt;
  return *v;
}

const json& items_or_array(const json& list) {
  static const json empty = json::array();
  if (list.is_array()) return list;
  if (list.is_object() && list.contains("items") && list["items"].is_array()) return list["items"];
  return empty;
}

}  // namespace

void NodeUsageAverage::add(const json& node_metrics) {
  for (const json& obj : items_or_array(node_metrics)) {
    if (!obj.is_object()) continue;
    const json meta = obj.value("metadata", json::object());
    const std::string name = meta.is_object() ? kube::json_text(meta.value("name", json())) : "";
    const json usage = obj.value("usage", json::object());
    auto cpu = milli_of(usage, "cpu");
    auto memory = milli_of(usage, "memory");
    const json timestamp = obj.value("timestamp", json());
    if (name.empty() || !cpu || !memory || !timestamp.is_string()) continue;
    const int64_t memory_bytes = (*memory + 999) / 1000;   // whole bytes, rounded up as Quantity.Value()
    auto [it, first] = nodes_.try_emplace(name);
    Average& a = it->second;
    a.cpu_milli = first ? *cpu : weighted(a.cpu_milli, *cpu);
    a.memory_bytes = first ? memory_bytes : weighted(a.memory_bytes, memory_bytes);
    a.timestamp = timestamp.get<std::string>();
    a.window = kube::json_text(obj.value("window", json()));
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
