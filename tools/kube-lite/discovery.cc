#include "tools/kube-lite/discovery.h"

namespace weft::kube_lite {

using nlohmann::json;

namespace {

json group_json(const std::string& name, const std::vector<std::string>& versions) {
  json vs = json::array();
  for (const auto& v : versions) vs.push_back({{"groupVersion", name + "/" + v}, {"version", v}});
  return {{"name", name}, {"versions", vs}, {"preferredVersion", vs.front()}};
}

json verbs_all() {
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

}  // namespace

json api_versions(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}})}};
}

json api_group_list(const ResourceTypes& types) {
  json groups = json::array();
  for (const auto& [name, versions] : types.groups())
    if (!name.empty()) groups.push_back(group_json(name, versions));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<json> api_group(const ResourceTypes& types, const std::string& group) {
  for (const auto& [name, versions] : types.groups()) {
    if (name != group || name.empty()) continue;
    json g = group_json(name, versions);
    g["kind"] = "APIGroup";
    g["apiVersion"] = "v1";
    return g;
  }
  return std::nullopt;
}

std::optional<json> api_resource_list(const ResourceTypes& types, const std::string& group,
                                      const std::string& version) {
  json resources = json::array();
  bool any = false;
  for (const auto& t : types.all()) {
    if (t.group != group || t.version != version) continue;
    any = true;
    json r = {{"name", t.plural},       {"singularName", t.singular}, {"namespaced", t.namespaced},
              {"kind", t.kind},         {"verbs", t.read_only ? json{"get", "list"} : verbs_all()}};
    if (!t.short_names.empty()) r["shortNames"] = t.short_names;
    if (!t.categories.empty()) r["categories"] = t.categories;
    resources.push_back(r);
    if (t.has_status)
      resources.push_back({{"name", t.plural + "/status"}, {"singularName", ""}, {"namespaced", t.namespaced},
                           {"kind", t.kind}, {"verbs", {"get", "patch", "update"}}});
    if (t.plural == "pods" && t.group.empty()) {
      resources.push_back({{"name", "pods/binding"}, {"singularName", ""}, {"namespaced", true},
                           {"kind", "Binding"}, {"verbs", {"create"}}});
      resources.push_back({{"name", "pods/eviction"}, {"singularName", ""}, {"namespaced", true},
                           {"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}, {"verbs", {"create"}}});
    }
  }
  if (!any) return std::nullopt;
  std::string gv = group.empty() ? version : group + "/" + version;
  return json{{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", gv}, {"resources", resources}};
}

json version_info() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0-kube-lite"},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "go1.23"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

}  // namespace weft::kube_lite
