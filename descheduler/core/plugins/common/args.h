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

// Every problem found in one part of a policy, kept so that a policy with several mistakes
// is told all of them at once (upstream aggregates its validation errors the same way).
// Each problem is one line naming its place; lines keep the order they were found in and
// a line found twice is kept once.
class Problems {
 public:
  // Keeps the error of `s`, if any; true when `s` is ok.
  bool add(const Status& s);
  void add(const Error& e);
  // The value of `r`, or nothing after keeping its error.
  template <class T>
  std::optional<T> take(Result<T> r) {
    if (r) return std::optional<T>(std::move(*r));
    add(r.error());
    return std::nullopt;
  }
  bool empty() const { return lines_.empty(); }
  // Ok when nothing was found, else one error holding every problem, one per line.
  Status status() const;
  Error error() const;

 private:
  std::vector<std::string> lines_;
};

std::string join(const std::string& path, const std::string& key);
// The member or null (never throws, never inserts).
const json& field(const json& obj, const char* key);
// Every member of `obj` must be one of `allowed` (each unknown one is a line of the error);
// obj must be a mapping.
Status only_fields(const Ctx& c, const json& obj, const std::string& path, std::initializer_list<const char*> allowed);

// A plugin's args: null (upstream's defaults) or a mapping whose fields are all `allowed`,
// each unknown one kept in `problems`. False when `args` is not a mapping: nothing more can
// be read from it.
bool check_fields(Problems& problems, const Ctx& c, const json& args, const std::string& path,
                  std::initializer_list<const char*> allowed);

Result<bool> get_bool(const Ctx& c, const json& v, const std::string& path);                      // null: false
// A Go uint (>= 0); above INT32_MAX it reads as INT32_MAX, a count no cycle reaches.
Result<std::optional<int>> get_count(const Ctx& c, const json& v, const std::string& path);
Result<std::optional<int64_t>> get_uint(const Ctx& c, const json& v, const std::string& path);    // >= 0, 64-bit
Result<std::string> get_string(const Ctx& c, const json& v, const std::string& path);             // null: ""
Result<std::vector<std::string>> get_strings(const Ctx& c, const json& v, const std::string& path);
Result<std::vector<int32_t>> get_int32s(const Ctx& c, const json& v, const std::string& path);
// The string form ("a=b,c in (d)") or a LabelSelector mapping.
Result<std::optional<kube::LabelSelector>> get_selector(const Ctx& c, const json& v, const std::string& path);
// A metav1.LabelSelector field of upstream's args: the mapping only (its string form does
// not decode into the Go type).
Result<std::optional<kube::LabelSelector>> get_label_selector(const Ctx& c, const json& v, const std::string& path);
// The nodeSelector of upstream's policy (top level, DefaultEvictor): its Go type is a
// string, so only the string form ("a=b,c in (d)") decodes; a mapping is refused.
Result<std::optional<kube::LabelSelector>> get_node_selector(const Ctx& c, const json& v, const std::string& path);
// numberOfNodes of the node-utilization plugins: a Go int upstream leaves unvalidated, so a
// negative one acts as 0 (no count of nodes is at or below it).
Result<int> get_number_of_nodes(const Ctx& c, const json& v, const std::string& path);
// A Go duration ("5m") or a number of seconds (weft's own fields).
Result<Seconds> get_duration(const Ctx& c, const json& v, const std::string& path);
// A metav1.Duration field of upstream's args: a Go duration string only, negative allowed.
Result<Seconds> get_go_duration(const Ctx& c, const json& v, const std::string& path);

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
