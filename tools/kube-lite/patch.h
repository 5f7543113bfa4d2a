// The three patch formats of the API: JSON merge patch (RFC 7386), strategic merge
// patch (Kubernetes: lists of containers, conditions, ... merged by their key, with
// the $patch, $setElementOrder, $deleteFromPrimitiveList and $retainKeys directives)
// and JSON patch (RFC 6902).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube_lite {

enum class PatchFormat { Merge, StrategicMerge, Json, Apply, Unknown };
PatchFormat patch_format(const std::string& content_type);

nlohmann::json merge_patch(const nlohmann::json& original, const nlohmann::json& patch);
Result<nlohmann::json> strategic_merge_patch(const nlohmann::json& original, const nlohmann::json& patch);
Result<nlohmann::json> json_patch(const nlohmann::json& original, const nlohmann::json& patch);

// The merge key of a list field under strategic merge ("containers" -> "name"), "" when
// the list is replaced as a whole.
std::string strategic_merge_key(const std::string& field);

}  // namespace weft::kube_lite
