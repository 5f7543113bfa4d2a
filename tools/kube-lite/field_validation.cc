#include "tools/kube-lite/field_validation.h"

#include <sstream>
#include <stdexcept>

namespace weft::kube_lite {

using nlohmann::json;

FieldSchemas::FieldSchemas() {
  std::istringstream in(kSchemaText);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string first;
    if (!(words >> first)) continue;
    if (first == "kind") {
      std::string gv, kind, type;
      if (!(words >> gv >> kind >> type)) throw std::logic_error("kube-lite schemas: bad line: " + line);
      kinds_[gv + " " + kind] = type;
      continue;
    }
    auto& fields = types_[first];
    for (std::string f; words >> f;) {
      size_t colon = f.find(':');
      if (colon == std::string::npos) throw std::logic_error("kube-lite schemas: bad field " + f + " in " + first);
      fields[f.substr(0, colon)] = Field{f.substr(colon + 1)};
    }
  }
  for (const auto& [kind, type] : kinds_) {
    if (!types_.count(type)) throw std::logic_error("kube-lite schemas: " + kind + " has no type " + type);
    auto& fields = types_[type];
    fields["apiVersion"] = Field{"s"};
    fields["kind"] = Field{"s"};
    fields["metadata"] = Field{"ObjectMeta"};
  }
}

bool FieldSchemas::covers(const std::string& api_version, const std::string& kind) const {
  return kinds_.count(api_version + " " + kind) > 0;
}

namespace {

std::string json_type(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  return "object";
}

}  // namespace

void FieldSchemas::check_value(const std::string& type, const json& v, const std::string& path,
                               const std::string& owner, Findings& out) const {
  if (v.is_null() || type == "*") return;
  auto wrong = [&](const char* want) {
    if (out.type_error.empty())
      out.type_error = "json: cannot unmarshal " + json_type(v) + " into Go struct field " + owner + "." + path +
                       " of type " + want;
  };
  if (type == "s") {
    if (!v.is_string()) wrong("string");
  } else if (type == "i") {
    if (!v.is_number_integer()) wrong("int64");
  } else if (type == "n") {
    if (!v.is_number()) wrong("float64");
  } else if (type == "b") {
    if (!v.is_boolean()) wrong("bool");
  } else if (type == "q") {
    if (!v.is_string() && !v.is_number()) wrong("IntOrString");
  } else if (type.front() == '[') {
    if (!v.is_array()) return wrong("[]");
    for (size_t i = 0; i < v.size(); ++i)
      check_value(type.substr(1, type.size() - 2), v[i], path + "[" + std::to_string(i) + "]", owner, out);
  } else if (type.front() == '{') {
    if (!v.is_object()) return wrong("map");
    for (const auto& [k, item] : v.items()) check_value(type.substr(1, type.size() - 2), item, path + "." + k, owner, out);
  } else {
    auto t = types_.find(type);
    if (t == types_.end()) throw std::logic_error("kube-lite schemas: no type " + type);
    if (!v.is_object()) return wrong(type.c_str());
    for (const auto& [k, item] : v.items()) {
      if (!k.empty() && k[0] == '$') continue;   // strategic merge patch directives
      const std::string at = path.empty() ? k : path + "." + k;
      auto f = t->second.find(k);
      if (f == t->second.end()) {
        out.unknown.push_back(at);
        continue;
      }
      check_value(f->second.type, item, at, type, out);
    }
  }
}

FieldSchemas::Findings FieldSchemas::check(const std::string& api_version, const std::string& kind,
                                           const json& object) const {
  Findings out;
  auto k = kinds_.find(api_version + " " + kind);
  if (k != kinds_.end()) check_value(k->second, object, "", k->second, out);
  return out;
}

void FieldSchemas::prune_value(const std::string& type, json& v) const {
  if (type.empty() || type == "*" || v.is_null()) return;
  if (type.front() == '[' && v.is_array()) {
    for (auto& item : v) prune_value(type.substr(1, type.size() - 2), item);
  } else if (type.front() == '{' && v.is_object()) {
    for (auto& [k, item] : v.items()) prune_value(type.substr(1, type.size() - 2), item);
  } else if (auto t = types_.find(type); t != types_.end() && v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      auto f = t->second.find(it.key());
      if (!it.key().empty() && it.key()[0] == '$') {
        ++it;
      } else if (f == t->second.end()) {
        it = v.erase(it);
      } else {
        prune_value(f->second.type, *it);
        ++it;
      }
    }
  }
}

void FieldSchemas::prune(const std::string& api_version, const std::string& kind, json& object) const {
  auto k = kinds_.find(api_version + " " + kind);
  if (k != kinds_.end()) prune_value(k->second, object);
}

std::variant<ApiError, std::vector<std::string>> validate_fields(const FieldSchemas& schemas, const ResourceType& type,
                                                                 json& body, const std::string& mode) {
  if (!mode.empty() && mode != "Strict" && mode != "Warn" && mode != "Ignore")
    return bad_request("fieldValidation: Unsupported value: \"" + mode +
                       "\": supported values: \"Ignore\", \"Strict\", \"Warn\"");
  if (!body.is_object() || !schemas.covers(type.api_version(), type.kind)) return std::vector<std::string>{};
  auto found = schemas.check(type.api_version(), type.kind, body);
  const std::string prefix = type.kind + " in version \"" + type.version + "\" cannot be handled as a " + type.kind + ": ";
  if (!found.type_error.empty()) return bad_request(prefix + found.type_error);
  std::vector<std::string> messages;
  for (const auto& f : found.unknown) messages.push_back("unknown field \"" + f + "\"");
  if (messages.empty()) return messages;
  if (mode != "Strict") schemas.prune(type.api_version(), type.kind, body);
  if (mode == "Ignore") return std::vector<std::string>{};
  if (mode == "Strict") {
    std::string joined;
    for (const auto& m : messages) joined += (joined.empty() ? "" : ", ") + m;
    return bad_request(prefix + "strict decoding error: " + joined);
  }
  return messages;
}

}  // namespace weft::kube_lite
