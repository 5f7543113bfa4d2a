// URL paths of the API to what they name: a discovery document or a resource
// collection/object/subresource, with the namespace.
#pragma once

#include <optional>
#include <string>

#include "tools/kube-lite/resource_types.h"

namespace weft::kube_lite {

struct Route {
  enum class Kind { ApiVersions, GroupList, Group, ResourceList, Version, OpenApiIndex, OpenApiDocument, Resource, Unknown };
  Kind kind = Kind::Unknown;
  std::string group, version;      // for Group / ResourceList
  const ResourceType* type = nullptr;
  std::string ns, name, subresource;
};

Route parse_route(const ResourceTypes& types, const std::string& path);

}  // namespace weft::kube_lite
