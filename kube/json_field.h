// Reading decoded API objects field by field: a member that is absent, or asked of a value
// that is not an object, reads as null (the API's "absent means the default").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube {

inline const nlohmann::json& json_at(const nlohmann::json& obj, const char* name) {
  static const nlohmann::json null_value;
  if (!obj.is_object()) return null_value;
  auto it = obj.find(name);
  return it == obj.end() ? null_value : *it;
}

// A string value's text; anything else (absent included) reads as "".
inline std::string json_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

// "where: field: what", or "field: what" when where is empty.
inline Error field_error(const std::string& where, const std::string& field, const std::string& what) {
  return make_error((where.empty() ? "" : where + ": ") + field + ": " + what);
}
// "field: what" (the caller prefixes the object).
inline Error field_error(const std::string& field, const std::string& what) { return field_error("", field, what); }

}  // namespace weft::kube
