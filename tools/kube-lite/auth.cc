#include "tools/kube-lite/auth.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "kube/scenario.h"

namespace weft::kube_lite {

using nlohmann::json;

namespace {

Result<std::vector<std::string>> strings(const json& item, const std::string& field, const std::string& where) {
  std::vector<std::string> out;
  if (!item.contains(field) || item[field].is_null()) return out;
  if (!item[field].is_array()) return make_error(where + ": field '" + field + "' must be a list of strings");
  for (const auto& v : item[field]) {
    if (!v.is_string()) return make_error(where + ": field '" + field + "' must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool listed(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), "*") != list.end() ||
         std::find(list.begin(), list.end(), value) != list.end();
}

bool rule_allows(const Rule& rule, const RequestAttributes& r) {
  if (!listed(rule.verbs, r.verb) || !listed(rule.api_groups, r.api_group)) return false;
  std::string resource = r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  bool resource_ok = listed(rule.resources, resource) ||
                     (!r.subresource.empty() && listed(rule.resources, r.resource + "/*"));
  if (!resource_ok) return false;
  if (rule.resource_names.empty()) return true;
  return !r.name.empty() && listed(rule.resource_names, r.name);
}

std::map<std::string, std::string> string_map(const json& obj, const char* field) {
  std::map<std::string, std::string> out;
  if (obj.contains("metadata") && obj["metadata"].contains(field) && obj["metadata"][field].is_object())
    for (auto it = obj["metadata"][field].begin(); it != obj["metadata"][field].end(); ++it)
      out[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
  return out;
}

}  // namespace

Result<Authenticator> Authenticator::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error("tokens file " + path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  auto doc = kube::yaml_to_json(ss.str(), "tokens file " + path);
  if (!doc) return doc.error();
  return from_json(*doc, "tokens file " + path);
}

Result<Authenticator> Authenticator::from_json(const json& list_in, const std::string& source) {
  json list = list_in;
  if (list.is_object() && list.contains("tokens")) list = list["tokens"];
  if (!list.is_array()) return make_error(source + ": expected a list of {token, user, rules}");
  Authenticator auth;
  auth.enabled_ = true;
  int index = 0;
  for (const auto& item : list) {
    ++index;
    std::string where = source + ": entry " + std::to_string(index);
    if (!item.is_object()) return make_error(where + ": must be a mapping");
    if (!item.contains("token") || !item["token"].is_string() || item["token"].get<std::string>().empty())
      return make_error(where + ": field 'token' is missing");
    if (!item.contains("user") || !item["user"].is_string())
      return make_error(where + ": field 'user' is missing");
    User user;
    user.name = item["user"];
    auto groups = strings(item, "groups", where);
    if (!groups) return groups.error();
    user.groups = *groups;
    if (item.contains("rules")) {
      if (!item["rules"].is_array()) return make_error(where + ": field 'rules' must be a list");
      int r = 0;
      for (const auto& rj : item["rules"]) {
        std::string rwhere = where + " rule " + std::to_string(++r);
        Rule rule;
        auto verbs = strings(rj, "verbs", rwhere);
        auto groups2 = strings(rj, "apiGroups", rwhere);
        auto res = strings(rj, "resources", rwhere);
        auto names = strings(rj, "resourceNames", rwhere);
        for (auto* s : {&verbs, &groups2, &res, &names})
          if (!*s) return s->error();
        rule = {*verbs, *groups2, *res, *names};
        user.rules.push_back(std::move(rule));
      }
    }
    if (item.contains("nodeRestriction")) {
      const auto& nr = item["nodeRestriction"];
      if (!nr.is_object() || !nr.contains("node") || !nr["node"].is_string())
        return make_error(where + ": field 'nodeRestriction.node' is missing");
      auto prefixes = strings(nr, "keyPrefixes", where + " nodeRestriction");
      if (!prefixes) return prefixes.error();
      user.node_restriction = NodeRestriction{nr["node"], *prefixes};
    }
    std::string token = item["token"];
    if (auth.by_token_.count(token)) return make_error(where + ": duplicate token");
    auth.by_token_[token] = std::move(user);
  }
  return auth;
}

std::optional<User> Authenticator::authenticate(const std::string& header) const {
  if (!enabled_) {
    User admin;
    admin.name = "";
    admin.unrestricted = true;
    return admin;
  }
  const std::string bearer = "Bearer ";
  if (header.size() <= bearer.size() || header.compare(0, bearer.size(), bearer) != 0) return std::nullopt;
  auto it = by_token_.find(header.substr(bearer.size()));
  if (it == by_token_.end()) return std::nullopt;
  return it->second;
}

std::optional<ApiError> authorize(const User& user, const RequestAttributes& r) {
  if (user.unrestricted) return std::nullopt;
  for (const auto& rule : user.rules)
    if (rule_allows(rule, r)) return std::nullopt;
  std::string resource = r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  std::string subject = r.name.empty() ? r.resource : r.resource + " \"" + r.name + "\"";
  if (!r.api_group.empty() && r.name.empty()) subject = r.resource + "." + r.api_group;
  if (!r.api_group.empty() && !r.name.empty()) subject = r.resource + "." + r.api_group + " \"" + r.name + "\"";
  std::string scope = r.ns.empty() ? "at the cluster scope" : "in the namespace \"" + r.ns + "\"";
  ApiError e = forbidden(subject + " is forbidden: User \"" + user.name + "\" cannot " + r.verb + " resource \"" +
                         resource + "\" in API group \"" + r.api_group + "\" " + scope);
  e.details = {{"kind", r.resource}};
  if (!r.name.empty()) e.details["name"] = r.name;
  if (!r.api_group.empty()) e.details["group"] = r.api_group;
  return e;
}

std::optional<ApiError> admit_node_change(const User& user, const json& old_node, const json& new_node) {
  if (!user.node_restriction) return std::nullopt;
  const auto& nr = *user.node_restriction;
  std::string name = new_node["metadata"].value("name", "");
  auto deny = [&](const std::string& why) {
    return forbidden("nodes \"" + name + "\" is forbidden: User \"" + user.name + "\" " + why);
  };
  if (name != nr.node) return deny("may only modify node \"" + nr.node + "\"");
  auto allowed_key = [&](const std::string& key) {
    return std::any_of(nr.key_prefixes.begin(), nr.key_prefixes.end(),
                       [&](const std::string& p) { return key.compare(0, p.size(), p) == 0; });
  };
  for (const char* field : {"labels", "annotations"}) {
    auto before = string_map(old_node, field), after = string_map(new_node, field);
    std::set<std::string> keys;
    for (const auto& [k, v] : before) keys.insert(k);
    for (const auto& [k, v] : after) keys.insert(k);
    for (const auto& k : keys) {
      auto b = before.find(k), a = after.find(k);
      bool same = b != before.end() && a != after.end() && b->second == a->second;
      if (!same && !allowed_key(k))
        return deny("may not change " + std::string(field == std::string("labels") ? "label" : "annotation") +
                    " \"" + k + "\" (only keys under the allowed prefixes)");
    }
  }
  // Anything else in the object must stay as it was.
  json a = old_node, b = new_node;
  for (json* o : {&a, &b}) {
    if (!o->contains("metadata")) continue;
    for (const char* f : {"labels", "annotations", "resourceVersion", "managedFields", "generation"})
      (*o)["metadata"].erase(f);
  }
  if (a != b) return deny("may only change labels and annotations of its node");
  return std::nullopt;
}

}  // namespace weft::kube_lite
