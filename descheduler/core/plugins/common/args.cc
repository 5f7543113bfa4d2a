#include "descheduler/core/plugins/common/args.h"

#include <algorithm>
#include <climits>

#include "descheduler/core/framework/default_evictor.h"
#include "kube/duration.h"
#include "kube/workload.h"

namespace weft::descheduler::args {

bool Problems::add(const Status& s) {
  if (s) return true;
  add(s.error());
  return false;
}

void Problems::add(const Error& e) {
  size_t start = 0;
  while (start <= e.message.size()) {
    size_t end = e.message.find('\n', start);
    if (end == std::string::npos) end = e.message.size();
    std::string line = e.message.substr(start, end - start);
    if (!line.empty() && std::find(lines_.begin(), lines_.end(), line) == lines_.end()) lines_.push_back(std::move(line));
    start = end + 1;
  }
}

Status Problems::status() const {
  if (lines_.empty()) return {};
  return error();
}

Error Problems::error() const {
  std::string out;
  for (const std::string& line : lines_) out += (out.empty() ? "" : "\n") + line;
  return make_error(out);
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

const json& field(const json& obj, const char* key) {
  static const json null_value;
  if (!obj.is_object()) return null_value;
  auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}

Status only_fields(const Ctx& c, const json& obj, const std::string& path, std::initializer_list<const char*> allowed) {
  if (!obj.is_object()) return c.at(path.empty() ? "(document)" : path, "must be a mapping");
  Problems problems;
  for (const auto& item : obj.items()) {
    const std::string& key = item.key();   // not a structured binding: clang 14 cannot capture one
    bool known = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; });
    if (!known) problems.add(c.at(join(path, key), "unknown field"));
  }
  return problems.status();
}

bool check_fields(Problems& problems, const Ctx& c, const json& args, const std::string& path,
                  std::initializer_list<const char*> allowed) {
  if (args.is_null()) return true;
  problems.add(only_fields(c, args, path, allowed));
  return args.is_object();
}

Result<bool> get_bool(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return false;
  if (!v.is_boolean()) return c.at(path, "must be true or false");
  return v.get<bool>();
}

Result<std::optional<int>> get_count(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return std::optional<int>();
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0))
    return c.at(path, "must be a non-negative integer");
  return std::optional<int>(static_cast<int>(std::min<uint64_t>(v.get<uint64_t>(), INT32_MAX)));
}

Result<std::optional<int64_t>> get_uint(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return std::optional<int64_t>();
  if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0))
    return c.at(path, "must be a non-negative integer");
  return std::optional<int64_t>(static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), INT64_MAX)));
}

Result<std::string> get_string(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return std::string();
  if (!v.is_string()) return c.at(path, "must be a string");
  return v.get<std::string>();
}

Result<std::vector<std::string>> get_strings(const Ctx& c, const json& v, const std::string& path) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return c.at(path, "must be a list of strings");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) return c.at(path + "[" + std::to_string(i) + "]", "must be a string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

Result<std::vector<int32_t>> get_int32s(const Ctx& c, const json& v, const std::string& path) {
  std::vector<int32_t> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return c.at(path, "must be a list of integers");
  for (size_t i = 0; i < v.size(); ++i) {
    const json& x = v[i];
    if (!x.is_number_integer() || x.get<int64_t>() > INT32_MAX || x.get<int64_t>() < INT32_MIN)
      return c.at(path + "[" + std::to_string(i) + "]", "must be a 32-bit integer");
    out.push_back(x.get<int32_t>());
  }
  return out;
}

Result<std::optional<kube::LabelSelector>> get_selector(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return std::optional<kube::LabelSelector>();
  // As upstream's conversion to a selector: every key a label key, every value a label value.
  constexpr auto checked = kube::LabelSyntax::Checked;
  auto sel = v.is_string() ? kube::LabelSelector::parse(v.get<std::string>(), checked)
                           : kube::LabelSelector::from_json(v, checked);
  if (sel) return std::optional<kube::LabelSelector>(std::move(*sel));
  Problems problems;   // each problem of the requirement refused, a line naming `path`
  size_t start = 0;
  for (size_t end; (end = sel.message().find('\n', start)) != std::string::npos; start = end + 1)
    problems.add(c.at(path, sel.message().substr(start, end - start)));
  problems.add(c.at(path, sel.message().substr(start)));
  return problems.error();
}

Result<std::optional<kube::LabelSelector>> get_label_selector(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_string()) return c.at(path, "must be a LabelSelector mapping (matchLabels, matchExpressions), not a string");
  return get_selector(c, v, path);
}

Result<std::optional<kube::LabelSelector>> get_node_selector(const Ctx& c, const json& v, const std::string& path) {
  if (!v.is_null() && !v.is_string())
    return c.at(path, "must be a label selector string such as \"pool=gpu,zone in (a,b)\" (its Go type is a string)");
  return get_selector(c, v, path);
}

Result<int> get_number_of_nodes(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return 0;
  if (!v.is_number_integer()) return c.at(path, "must be an integer");
  if (v.is_number_unsigned()) return static_cast<int>(std::min<uint64_t>(v.get<uint64_t>(), INT32_MAX));
  return static_cast<int>(std::clamp<int64_t>(v.get<int64_t>(), 0, INT32_MAX));
}

Result<Seconds> get_duration(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_number()) {
    if (v.get<double>() < 0) return c.at(path, "must not be negative");
    return Seconds(v.get<double>());
  }
  if (!v.is_string()) return c.at(path, "must be a duration such as 5m");
  auto d = kube::parse_duration_at_least(v.get<std::string>(), kube::Duration::zero());
  if (!d) return c.at(path, d.message());
  return to_seconds(*d);
}

Result<Seconds> get_go_duration(const Ctx& c, const json& v, const std::string& path) {
  if (!v.is_string()) return c.at(path, "must be a duration string such as \"5m\" (a metav1.Duration; a plain number does not decode into it)");
  auto d = kube::parse_duration(v.get<std::string>());
  if (!d) return c.at(path, d.message());
  return to_seconds(*d);
}

namespace {

// Reads obj[key] with `get` and stores it unless absent.
template <class T, class Get>
Status read_with(const Ctx& c, const json& obj, const std::string& path, const char* key, T& out, Get get) {
  const json& v = field(obj, key);
  if (v.is_null()) return {};
  auto got = get(c, v, join(path, key));
  if (!got) return got.error();
  out = std::move(*got);
  return {};
}

}  // namespace

Status read(const Ctx& c, const json& obj, const std::string& path, const char* key, bool& out) {
  return read_with(c, obj, path, key, out, get_bool);
}
Status read(const Ctx& c, const json& obj, const std::string& path, const char* key, std::vector<std::string>& out) {
  return read_with(c, obj, path, key, out, get_strings);
}
Status read(const Ctx& c, const json& obj, const std::string& path, const char* key, std::vector<int32_t>& out) {
  return read_with(c, obj, path, key, out, get_int32s);
}
Status read(const Ctx& c, const json& obj, const std::string& path, const char* key, std::optional<int64_t>& out) {
  return read_with(c, obj, path, key, out, get_uint);
}

bool Namespaces::allows(const std::string& ns) const { return framework::namespace_allowed(include, exclude, ns); }

Result<Namespaces> get_namespaces(const Ctx& c, const json& v, const std::string& path) {
  Namespaces out;
  if (v.is_null()) return out;
  Problems problems;
  if (!problems.add(only_fields(c, v, path, {"include", "exclude"})) && !v.is_object()) return problems.error();
  auto inc = problems.take(get_strings(c, field(v, "include"), path + ".include"));
  auto exc = problems.take(get_strings(c, field(v, "exclude"), path + ".exclude"));
  if (inc && exc && !inc->empty() && !exc->empty()) problems.add(c.at(path, "set include or exclude, not both"));
  if (!problems.empty()) return problems.error();
  out.include = std::move(*inc);
  out.exclude = std::move(*exc);
  return out;
}

}  // namespace weft::descheduler::args
