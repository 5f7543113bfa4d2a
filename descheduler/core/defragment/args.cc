#include "descheduler/core/defragment/args.h"

namespace weft::descheduler::defragment {
namespace {

using nlohmann::json;

Result<std::vector<std::string>> names(const json& v, const std::string& path) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return make_error(path + ": must be a list of namespaces");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get<std::string>().empty())
      return make_error(path + "[" + std::to_string(i) + "]: must be a namespace name");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

}  // namespace

Result<Args> parse_args(const json& args, const std::string& path) {
  Args out;
  if (args.is_null()) return out;
  if (!args.is_object()) return make_error(path + ": must be a mapping");
  for (const auto& [key, value] : args.items()) {
    std::string at = path + "." + key;
    if (key == "evictableNamespaces") {
      if (!value.is_object()) return make_error(at + ": must be a mapping with include or exclude");
      for (const auto& [k, _] : value.items())
        if (k != "include" && k != "exclude") return make_error(at + "." + k + ": unknown field");
      auto inc = names(value.value("include", json()), at + ".include");
      if (!inc) return inc.error();
      auto exc = names(value.value("exclude", json()), at + ".exclude");
      if (!exc) return exc.error();
      if (!inc->empty() && !exc->empty()) return make_error(at + ": set include or exclude, not both");
      out.include_namespaces = *inc;
      out.exclude_namespaces = *exc;
    } else if (key == "reservationTTL") {
      if (!value.is_string()) return make_error(at + ": must be a duration such as 10m");
      auto d = kube::parse_duration_at_least(value.get<std::string>(), std::chrono::seconds(1));
      if (!d) return make_error(at + ": " + d.message());
      out.reservation_ttl = to_seconds(*d);
    } else if (key == "maxEvictionsPerGang") {
      if (!value.is_number_integer() || value.get<int64_t>() < 1 || value.get<int64_t>() > 100000)
        return make_error(at + ": must be an integer from 1 to 100000");
      out.max_evictions_per_gang = value.get<int>();
    } else {
      return make_error(at + ": unknown field");
    }
  }
  return out;
}

}  // namespace weft::descheduler::defragment
