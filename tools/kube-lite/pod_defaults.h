// What the real API server does to a Pod's spec on its own: defaults on create and
// update, the QoS class, and the rule that a pod's spec is immutable but for a few fields.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace weft::kube_lite {

void default_pod_spec(nlohmann::json& spec);
// "Guaranteed", "Burstable" or "BestEffort" from the containers' requests and limits.
std::string qos_class(const nlohmann::json& spec);
// Why an update from old_spec to new_spec is forbidden, or nullopt when it is allowed.
std::optional<std::string> pod_spec_update_forbidden(const nlohmann::json& old_spec, const nlohmann::json& new_spec);

}  // namespace weft::kube_lite
