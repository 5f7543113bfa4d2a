#include "tools/kube-lite/pod_defaults.h"

namespace weft::kube_lite {

using nlohmann::json;

void default_pod_spec(json& spec) {
  if (!spec.is_object()) return;
  auto set_default = [&](const char* key, json value) {
    if (!spec.contains(key) || spec[key].is_null()) spec[key] = std::move(value);
  };
  set_default("schedulerName", "default-scheduler");
  set_default("restartPolicy", "Always");
  set_default("dnsPolicy", "ClusterFirst");
  set_default("terminationGracePeriodSeconds", 30);
  set_default("securityContext", json::object());
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (auto& c : spec[list]) {
      if (!c.is_object()) continue;
      if (!c.contains("terminationMessagePath")) c["terminationMessagePath"] = "/dev/termination-log";
      if (!c.contains("terminationMessagePolicy")) c["terminationMessagePolicy"] = "File";
      if (!c.contains("imagePullPolicy")) {
        std::string image = c.value("image", "");
        bool latest = image.find(':') == std::string::npos || image.size() < 7 ||
                      image.compare(image.size() - 7, 7, ":latest") == 0;
        c["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
      }
      if (!c.contains("resources")) c["resources"] = json::object();
    }
  }
}

std::string qos_class(const json& spec) {
  bool any = false, guaranteed = true;
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (const auto& c : spec[list]) {
      json res = c.is_object() ? c.value("resources", json::object()) : json::object();
      json req = res.value("requests", json::object()), lim = res.value("limits", json::object());
      if (!req.empty() || !lim.empty()) any = true;
      for (const char* r : {"cpu", "memory"}) {
        if (!lim.contains(r)) {
          guaranteed = false;
          continue;
        }
        if (req.contains(r) && req[r] != lim[r]) guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

std::optional<std::string> pod_spec_update_forbidden(const json& old_spec, const json& new_spec) {
  // Carry the mutable fields over from the new spec into a copy of the old one; any
  // other difference is forbidden.
  json expected = old_spec;
  for (const char* list : {"containers", "initContainers"}) {
    if (!expected.contains(list) || !new_spec.contains(list)) continue;
    auto& olds = expected[list];
    const auto& news = new_spec[list];
    if (!olds.is_array() || !news.is_array() || olds.size() != news.size()) continue;
    for (size_t i = 0; i < olds.size(); ++i)
      if (news[i].is_object() && news[i].contains("image")) olds[i]["image"] = news[i]["image"];
  }
  for (const char* f : {"activeDeadlineSeconds", "terminationGracePeriodSeconds", "tolerations"}) {
    if (new_spec.contains(f)) {
      expected[f] = new_spec[f];
    } else {
      expected.erase(f);
    }
  }
  if (expected == new_spec) return std::nullopt;
  return "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
         "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
         "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";
}

}  // namespace weft::kube_lite
