#include "scheduler/core/plugins/proportion/usable_capacity.h"

#include "scheduler/core/plugins/arguments.h"

namespace weft::scheduler {

Result<CapacityFilter> parse_capacity_filter(const nlohmann::json& arguments) {
  CapacityFilter f;
  for (const auto& [k, v] : arguments.items()) {
    if (k == "tolerations") {
      auto t = kube::tolerations_of_pod(nlohmann::json{{"spec", {{"tolerations", v}}}});
      if (!t) return make_error("argument 'tolerations': " + t.message());
      f.tolerations = std::move(*t);
    } else if (k == "nodeSelector") {
      if (!v.is_object()) return make_error("argument 'nodeSelector': not a map of labels");
      for (const auto& [lk, lv] : v.items()) {
        if (!lv.is_string()) return make_error("argument 'nodeSelector." + lk + "': not a string");
        f.node_selector[lk] = lv.get<std::string>();
      }
    } else {
      return unknown_argument(k, "tolerations, nodeSelector");
    }
  }
  return f;
}

Quantities usable_capacity(const Snapshot& s, const CapacityFilter& filter) {
  Quantities total;
  for (const auto& n : s.nodes) {
    if (!n.ready || n.unschedulable) continue;
    if (kube::first_untolerated_hard_taint(n.taints, filter.tolerations)) continue;
    bool selected = true;
    for (const auto& [k, v] : filter.node_selector) {
      const std::string* have = n.labels.find(k);
      if (!have || *have != v) selected = false;
    }
    if (!selected) continue;
    add(total, n.allocatable);
  }
  total.erase("pods");
  return total;
}

}  // namespace weft::scheduler
