#include "scheduler/core/config_metrics.h"

#include <set>

namespace weft::scheduler {

Status check_metrics_section(const nlohmann::json& metrics, const std::string& where) {
  if (metrics.is_null()) return {};
  if (!metrics.is_object()) return make_error(where + ": metrics: not a map of strings (Volcano's metrics configuration)");
  for (const auto& [k, v] : metrics.items())
    if (v.is_object() || v.is_array())
      return make_error(where + ": metrics." + k + ": not a string (metrics is a map of strings)");
  if (metrics.empty()) return {};
  static const std::set<std::string> volcano_types = {"elasticsearch", "prometheus", "prometheus_adaptor"};
  const std::string type = metrics.contains("type") && metrics["type"].is_string() ? metrics["type"].get<std::string>() : "";
  if (type.empty())
    return make_error(where + ": metrics." + metrics.items().begin().key() +
                      ": without metrics.type it configures nothing (Volcano then collects no node usage); remove it");
  if (!volcano_types.count(type))
    return make_error(where + ": metrics.type '" + type +
                      "' is unknown (Volcano supports elasticsearch, prometheus and prometheus_adaptor)");
  return make_error(where + ": metrics.type '" + type +
                    "': weft queries no metrics system; node usage comes from the weft.dev/load annotation "
                    "weft-agent writes (usage plugin). Remove 'metrics'");
}

}  // namespace weft::scheduler
