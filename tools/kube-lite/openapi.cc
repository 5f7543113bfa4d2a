#include "tools/kube-lite/openapi.h"

namespace weft::kube_lite {

using nlohmann::json;

namespace {

std::string gv_path(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

json parameter(const char* name) {
  return {{"name", name}, {"in", "query"}, {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

}  // namespace

json openapi_v3_index(const ResourceTypes& types) {
  json paths = json::object();
  for (const auto& [group, versions] : types.groups())
    for (const auto& v : versions) {
      std::string p = gv_path(group, v);
      paths[p] = {{"serverRelativeURL", "/openapi/v3/" + p + "?hash=kube-lite"}};
    }
  return {{"paths", paths}};
}

std::optional<json> openapi_v3_document(const ResourceTypes& types, const std::string& group,
                                        const std::string& version) {
  json paths = json::object();
  for (const auto& t : types.all()) {
    if (t.group != group || t.version != version) continue;
    std::string base = "/" + gv_path(group, version) + (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.plural;
    json gvk = {{"group", t.group}, {"version", t.version}, {"kind", t.kind}};
    json op = {{"x-kubernetes-group-version-kind", gvk},
               {"parameters", json::array({parameter("dryRun"), parameter("fieldManager"), parameter("fieldValidation")})},
               {"responses", {{"200", {{"description", "OK"}}}}}};
    json create_op = op;
    paths[base] = {{"post", create_op}};
    json object_ops = {{"patch", op}, {"put", op}};
    paths[base + "/{name}"] = object_ops;
  }
  if (paths.empty()) return std::nullopt;
  return json{{"openapi", "3.0.0"},
              {"info", {{"title", "Kubernetes (kube-lite)"}, {"version", "v1.32.0"}}},
              {"paths", paths},
              {"components", {{"schemas", json::object()}}}};
}

}  // namespace weft::kube_lite
