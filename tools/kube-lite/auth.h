// Bearer-token authentication and RBAC-like authorization for kube-lite (--tokens).
// File: a YAML/JSON list of
//   {token, user, groups:[..], extra:{..},
//    rules:[{verbs:[..], apiGroups:[..], resources:["nodes","pods/eviction"], resourceNames:[..]}],
//    nodeRestriction: {node: NAME, keyPrefixes: ["weft.dev/"]}}   (optional)
// nodeRestriction works like the NodeRestriction admission plugin narrowed to labels:
// the token may change only its own Node, and there only label/annotation keys under
// the prefixes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "tools/kube-lite/api_error.h"

namespace weft::kube_lite {

struct Rule {
  std::vector<std::string> verbs, api_groups, resources, resource_names;
};

struct NodeRestriction {
  std::string node;
  std::vector<std::string> key_prefixes;
};

struct User {
  std::string name;
  std::vector<std::string> groups;
  std::vector<Rule> rules;
  std::optional<NodeRestriction> node_restriction;
  bool unrestricted = false;       // no --tokens: everything is allowed
};

// What a request wants to do, in the authorizer's terms.
struct RequestAttributes {
  std::string verb;          // get, list, watch, create, update, patch, delete
  std::string api_group;
  std::string resource;      // "pods"
  std::string subresource;   // "eviction", "status", ""
  std::string ns;
  std::string name;
};

class Authenticator {
 public:
  Authenticator() = default;   // no tokens: one unrestricted user
  static Result<Authenticator> load_file(const std::string& path);
  static Result<Authenticator> from_json(const nlohmann::json& list, const std::string& source);

  bool enabled() const { return enabled_; }
  // From the Authorization header; 401 when tokens are configured and it is missing or unknown.
  std::optional<User> authenticate(const std::string& authorization_header) const;

 private:
  bool enabled_ = false;
  std::map<std::string, User> by_token_;
};

// nullopt when allowed, else the 403 the real API server sends.
std::optional<ApiError> authorize(const User& user, const RequestAttributes& request);

// Admission for a user's change of a Node (old -> new): nullopt when allowed.
std::optional<ApiError> admit_node_change(const User& user, const nlohmann::json& old_node,
                                          const nlohmann::json& new_node);

}  // namespace weft::kube_lite
