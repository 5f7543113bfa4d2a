#include "kube/taints.h"

#include "kube/objects.h"

namespace weft::kube {

bool Toleration::tolerates(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (key.empty()) return op == "Exists";
  if (key != taint.key) return false;
  if (op == "Exists") return true;
  return value == taint.value;  // "Equal" (the default)
}

Result<std::vector<Taint>> taints_of_node(const nlohmann::json& node) {
  std::vector<Taint> out;
  auto spec = node.find("spec");
  if (spec == node.end() || !spec->contains("taints") || (*spec)["taints"].is_null()) return out;
  const auto& taints = (*spec)["taints"];
  if (!taints.is_array()) return make_error("spec.taints: not a list");
  for (size_t i = 0; i < taints.size(); ++i) {
    const auto& t = taints[i];
    std::string where = "spec.taints[" + std::to_string(i) + "]";
    if (!t.is_object() || !t.contains("key") || !t["key"].is_string())
      return make_error(where + ".key: missing");
    auto effect = optional_string(t, "effect", where);
    if (!effect) return effect.error();
    if (*effect != "NoSchedule" && *effect != "PreferNoSchedule" && *effect != "NoExecute")
      return make_error(where + ".effect: '" + *effect + "' is not NoSchedule, PreferNoSchedule or NoExecute");
    auto value = optional_string(t, "value", where);
    if (!value) return value.error();
    out.push_back({t["key"].get<std::string>(), *value, *effect});
  }
  return out;
}

Result<std::vector<Toleration>> tolerations_of_pod(const nlohmann::json& pod) {
  std::vector<Toleration> out;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->contains("tolerations") || (*spec)["tolerations"].is_null()) return out;
  const auto& tols = (*spec)["tolerations"];
  if (!tols.is_array()) return make_error("spec.tolerations: not a list");
  for (size_t i = 0; i < tols.size(); ++i) {
    const auto& t = tols[i];
    std::string where = "spec.tolerations[" + std::to_string(i) + "]";
    if (!t.is_object()) return make_error(where + ": not an object");
    Toleration tol;
    for (auto [key, into] : {std::pair{"key", &tol.key}, std::pair{"operator", &tol.op}, std::pair{"value", &tol.value},
                             std::pair{"effect", &tol.effect}}) {
      auto text = optional_string(t, key, where);
      if (!text) return text.error();
      *into = std::move(*text);
    }
    if (tol.op.empty()) tol.op = "Equal";
    if (tol.op != "Equal" && tol.op != "Exists")
      return make_error(where + ".operator: '" + tol.op + "' is not Equal or Exists");
    if (tol.key.empty() && tol.op != "Exists")
      return make_error(where + ": an empty key needs operator Exists");
    if (t.contains("tolerationSeconds") && t["tolerationSeconds"].is_number_integer())
      tol.toleration_seconds = t["tolerationSeconds"].get<int64_t>();
    out.push_back(std::move(tol));
  }
  return out;
}

bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const auto& t : tolerations)
    if (t.tolerates(taint)) return true;
  return false;
}

std::optional<Taint> first_untolerated_hard_taint(const std::vector<Taint>& taints,
                                                  const std::vector<Toleration>& tolerations) {
  for (const auto& taint : taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!tolerated(tolerations, taint)) return taint;
  }
  return std::nullopt;
}

}  // namespace weft::kube
