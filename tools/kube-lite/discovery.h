// Discovery documents (/api, /apis, /api/v1, /apis/GROUP/VERSION, /version) built from
// the resource table, in the legacy (non-aggregated) shape every client understands.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/kube-lite/resource_types.h"

namespace weft::kube_lite {

nlohmann::json api_versions(const std::string& server_address);   // /api
nlohmann::json api_group_list(const ResourceTypes& types);         // /apis
// /api/v1 (group "") or /apis/GROUP/VERSION; nullopt when not served.
std::optional<nlohmann::json> api_resource_list(const ResourceTypes& types, const std::string& group,
                                                const std::string& version);
std::optional<nlohmann::json> api_group(const ResourceTypes& types, const std::string& group);   // /apis/GROUP
nlohmann::json version_info();                                     // /version

}  // namespace weft::kube_lite
