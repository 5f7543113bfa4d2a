#include "descheduler/core/defragment/args.h"

namespace weft::descheduler::defragment {
namespace {

using args::field;
using args::join;
using nlohmann::json;

// evictableNamespaces: upstream's {include} or {exclude} shape, each entry a namespace name.
void read_namespaces(args::Problems& problems, const args::Ctx& c, const json& v, const std::string& at, Args& out) {
  auto ns = problems.take(args::get_namespaces(c, v, at));
  if (!ns) return;
  for (const char* list : {"include", "exclude"}) {
    const json& names = field(v, list);
    for (size_t i = 0; names.is_array() && i < names.size(); ++i)
      if (names[i].get<std::string>().empty())
        problems.add(c.at(join(at, list) + "[" + std::to_string(i) + "]", "must be a namespace name"));
  }
  out.include_namespaces = std::move(ns->include);
  out.exclude_namespaces = std::move(ns->exclude);
}

Status read_ttl(const args::Ctx& c, const json& v, const std::string& at, Args& out) {
  if (v.is_null()) return {};
  if (!v.is_string()) return c.at(at, "must be a duration such as 10m");
  auto d = kube::parse_duration_at_least(v.get<std::string>(), std::chrono::seconds(1));
  if (!d) return c.at(at, d.message());
  out.reservation_ttl = to_seconds(*d);
  return {};
}

Status read_max_evictions(const args::Ctx& c, const json& v, const std::string& at, Args& out) {
  if (v.is_null()) return {};
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 100000)
    return c.at(at, "must be an integer from 1 to 100000");
  out.max_evictions_per_gang = v.get<int>();
  return {};
}

}  // namespace

Result<Args> parse_args(const args::Ctx& c, const json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path, {"evictableNamespaces", "reservationTTL", "maxEvictionsPerGang"}))
    return problems.error();
  read_namespaces(problems, c, field(a, "evictableNamespaces"), join(path, "evictableNamespaces"), out);
  problems.add(read_ttl(c, field(a, "reservationTTL"), join(path, "reservationTTL"), out));
  problems.add(read_max_evictions(c, field(a, "maxEvictionsPerGang"), join(path, "maxEvictionsPerGang"), out));
  if (!problems.empty()) return problems.error();
  return out;
}

}  // namespace weft::descheduler::defragment
