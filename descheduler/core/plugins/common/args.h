// Reading plugin args and policy fields: each reader names the path it is at, so an
// error reads "policy.yaml: profiles[0].pluginConfig[1].args.reasons[2]: must be a string".
// Absent (null) values give the caller's default.
#pragma once

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/core/load.h"
#include "kube/selector.h"

namespace weft::descheduler::args {

using nlohmann::json;

struct Ctx {
  std::string name;   // the policy file: prefixes every error
  Error at(const std::string& path, const std::string& what) const { return make_error(name + ": " + path + ": " + what); }
};

std::string join(const std::string& path, const std::string& key);
// The member or null (never throws, never inserts).
const json& field(const json& obj, const char* key);
// Every member of `obj` must be one of `allowed`; obj must be a mapping.
Status only_fields(const Ctx& c, const json& obj, const std::string& path, std::initializer_list<const char*> allowed);

Result<bool> get_bool(const Ctx& c, const json& v, const std::string& path);                      // null: false
Result<std::optional<int>> get_count(const Ctx& c, const json& v, const std::string& path);       // >= 0
Result<std::optional<int64_t>> get_uint(const Ctx& c, const json& v, const std::string& path);    // >= 0, 64-bit
Result<std::string> get_string(const Ctx& c, const json& v, const std::string& path);             // null: ""
Result<std::vector<std::string>> get_strings(const Ctx& c, const json& v, const std::string& path);
Result<std::vector<int32_t>> get_int32s(const Ctx& c, const json& v, const std::string& path);
// The string form ("a=b,c in (d)") or a LabelSelector mapping.
Result<std::optional<kube::LabelSelector>> get_selector(const Ctx& c, const json& v, const std::string& path);
// A metav1.LabelSelector field of upstream's args: the mapping only (its string form does
// not decode into the Go type).
Result<std::optional<kube::LabelSelector>> get_label_selector(const Ctx& c, const json& v, const std::string& path);
// numberOfNodes of the node-utilization plugins: a Go int upstream leaves unvalidated, so a
// negative one acts as 0 (no count of nodes is at or below it).
Result<int> get_number_of_nodes(const Ctx& c, const json& v, const std::string& path);
// A Go duration ("5m") or a number of seconds.
Result<Seconds> get_duration(const Ctx& c, const json& v, const std::string& path);

// obj[key] into `out` (path names obj); an absent key leaves `out` as it is (the default).
Status read(const Ctx& c, const json& obj, const std::string& path, const char* key, bool& out);
Status read(const Ctx& c, const json& obj, const std::string& path, const char* key, std::vector<std::string>& out);
Status read(const Ctx& c, const json& obj, const std::string& path, const char* key, std::vector<int32_t>& out);
Status read(const Ctx& c, const json& obj, const std::string& path, const char* key, std::optional<int64_t>& out);

// upstream's api.Namespaces: {include: [..]} or {exclude: [..]}, not both.
struct Namespaces {
  std::vector<std::string> include, exclude;
  bool allows(const std::string& ns) const;
};
Result<Namespaces> get_namespaces(const Ctx& c, const json& v, const std::string& path);

}  // namespace weft::descheduler::args
