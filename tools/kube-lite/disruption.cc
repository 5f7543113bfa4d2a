#include "tools/kube-lite/disruption.h"

#include <algorithm>
#include <cmath>

#include "kube/selector.h"

namespace weft::kube_lite {

using nlohmann::json;

json DisruptionStatus::to_status(int64_t observed_generation) const {
  return {{"observedGeneration", observed_generation},
          {"expectedPods", expected_pods},
          {"desiredHealthy", desired_healthy},
          {"currentHealthy", current_healthy},
          {"disruptionsAllowed", disruptions_allowed}};
}

Result<bool> budget_selects(const json& pdb, const json& pod) {
  json selector = pdb.contains("spec") ? pdb["spec"].value("selector", json()) : json();
  auto sel = kube::LabelSelector::from_json(selector);
  if (!sel) return sel.error();
  return sel->matches(kube::labels_of(pod));
}

bool pod_healthy(const json& pod) {
  if (pod.contains("metadata") && pod["metadata"].contains("deletionTimestamp")) return false;
  if (!pod.contains("status") || pod["status"].value("phase", "") != "Running") return false;
  const auto& conditions = pod["status"].value("conditions", json::array());
  return std::any_of(conditions.begin(), conditions.end(), [](const json& c) {
    return c.value("type", "") == "Ready" && c.value("status", "") == "True";
  });
}

Result<int> scaled_value(const json& value, int total) {
  if (value.is_number_integer()) return value.get<int>();
  if (!value.is_string()) return make_error("must be an integer or a percentage");
  std::string s = value.get<std::string>();
  try {
    size_t used = 0;
    if (!s.empty() && s.back() == '%') {
      int pct = std::stoi(s.substr(0, s.size() - 1), &used);
      if (used != s.size() - 1 || pct < 0) return make_error("invalid percentage '" + s + "'");
      return static_cast<int>(std::ceil(static_cast<double>(pct) * total / 100.0));
    }
    int v = std::stoi(s, &used);
    if (used != s.size()) return make_error("invalid value '" + s + "'");
    return v;
  } catch (const std::exception&) {
    return make_error("invalid value '" + s + "'");
  }
}

Result<DisruptionStatus> compute_disruption(const json& pdb, const std::vector<json>& pods) {
  DisruptionStatus st;
  const json spec = pdb.value("spec", json::object());
  for (const auto& pod : pods) {
    auto selected = budget_selects(pdb, pod);
    if (!selected) return wrap(selected.error(), "spec.selector");
    if (!*selected) continue;
    ++st.expected_pods;
    if (pod_healthy(pod)) ++st.current_healthy;
  }
  if (spec.contains("minAvailable")) {
    auto v = scaled_value(spec["minAvailable"], st.expected_pods);
    if (!v) return wrap(v.error(), "spec.minAvailable");
    st.desired_healthy = *v;
  } else if (spec.contains("maxUnavailable")) {
    auto v = scaled_value(spec["maxUnavailable"], st.expected_pods);
    if (!v) return wrap(v.error(), "spec.maxUnavailable");
    st.desired_healthy = std::max(0, st.expected_pods - *v);
  } else {
    st.desired_healthy = 0;
  }
  st.disruptions_allowed = std::max(0, st.current_healthy - st.desired_healthy);
  return st;
}

}  // namespace weft::kube_lite
