// A minimal OpenAPI v3 surface: the /openapi/v3 index and one document per group
// version whose PATCH operations carry x-kubernetes-group-version-kind and the
// fieldValidation parameter. That is what kubectl checks before it leaves field
// validation to the server (no schemas: kubectl then falls back to its built-in types).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/kube-lite/resource_types.h"

namespace weft::kube_lite {

nlohmann::json openapi_v3_index(const ResourceTypes& types);
// path "api/v1" or "apis/GROUP/VERSION"; nullopt when not served.
std::optional<nlohmann::json> openapi_v3_document(const ResourceTypes& types, const std::string& group,
                                                  const std::string& version);

}  // namespace weft::kube_lite
