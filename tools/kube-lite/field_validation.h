// Server-side field validation (?fieldValidation=Strict|Warn|Ignore) for the kinds with a
// schema in schemas.cc, as the real API server does it: Strict answers 400 with
// "strict decoding error: unknown field \"spec.x\"", Warn (the default) accepts and sends
// a `Warning: 299 - "unknown field ..."` header per field, Ignore accepts silently; both
// drop the unknown fields from what is stored, as the real decoder does. A value of the
// wrong JSON type is a 400 in every mode (the real server cannot decode it). Kinds without
// a schema (pods, nodes, Volcano's CRDs...) are not checked.
#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/kube-lite/api_error.h"
#include "tools/kube-lite/resource_types.h"

namespace weft::kube_lite {

extern const char* const kSchemaText;

class FieldSchemas {
 public:
  // Parses kSchemaText; a mistake in it is a bug of kube-lite: throws std::logic_error.
  FieldSchemas();
  bool covers(const std::string& api_version, const std::string& kind) const;
  struct Findings {
    std::vector<std::string> unknown;   // "spec.template.spec.containers[0].readinesProbe"
    std::string type_error;             // first value of the wrong type, or ""
  };
  // A whole object (create, update) or a merge/strategic merge patch ($-directives skipped).
  Findings check(const std::string& api_version, const std::string& kind, const nlohmann::json& object) const;
  // Removes the unknown fields check() reports.
  void prune(const std::string& api_version, const std::string& kind, nlohmann::json& object) const;

 private:
  struct Field {
    std::string type;   // "s", "i", "b", "n", "q", "*", "[T]", "{T}" or a type name
  };
  void check_value(const std::string& type, const nlohmann::json& v, const std::string& path,
                   const std::string& owner, Findings& out) const;
  void prune_value(const std::string& type, nlohmann::json& v) const;
  std::map<std::string, std::map<std::string, Field>> types_;
  std::map<std::string, std::string> kinds_;   // "apps/v1 DaemonSet" -> type
};

// Runs the check for a request: an error reply, or the warnings to send (maybe none) with
// the unknown fields removed from `body`.
std::variant<ApiError, std::vector<std::string>> validate_fields(const FieldSchemas& schemas, const ResourceType& type,
                                                                 nlohmann::json& body, const std::string& mode);

}  // namespace weft::kube_lite
