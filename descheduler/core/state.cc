#include "descheduler/core/state.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

void prune_map(std::map<std::string, TimePoint>& m, TimePoint cutoff) {
  for (auto it = m.begin(); it != m.end();) it = it->second < cutoff ? m.erase(it) : std::next(it);
}

nlohmann::json times(const std::map<std::string, TimePoint>& m) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, t] : m) out[k] = format_rfc3339(t);
  return out;
}

Status read_times(const nlohmann::json& doc, const char* key, const std::string& where,
                  std::map<std::string, TimePoint>& into) {
  if (!doc.contains(key)) return {};
  if (!doc[key].is_object()) return make_error(where + ": " + key + " must be a mapping of name to time");
  for (const auto& [k, v] : doc[key].items()) {
    if (!v.is_string()) return make_error(where + ": " + key + "." + k + " must be an RFC 3339 time");
    auto t = parse_rfc3339(v.get<std::string>());
    if (!t) return make_error(where + ": " + key + "." + k + ": " + t.message());
    into[k] = *t;
  }
  return {};
}

}  // namespace

void DeschedulerState::prune(TimePoint now, Seconds keep) {
  auto cutoff = now - std::chrono::duration_cast<TimePoint::duration>(keep);
  prune_map(source_evicted_at, cutoff);
  prune_map(workload_moved_at, cutoff);
  for (auto it = arrivals.begin(); it != arrivals.end();) it = it->second.at < cutoff ? arrivals.erase(it) : std::next(it);
}

nlohmann::json DeschedulerState::to_json() const {
  nlohmann::json arr = nlohmann::json::object();
  for (const auto& [node, a] : arrivals) arr[node] = {{"at", format_rfc3339(a.at)}, {"cpu", a.cpu}, {"memory", a.memory}};
  return {{"sources", times(source_evicted_at)}, {"workloads", times(workload_moved_at)}, {"arrivals", arr}};
}

Result<DeschedulerState> DeschedulerState::from_json(const nlohmann::json& doc, const std::string& where) {
  DeschedulerState s;
  if (!doc.is_object()) return make_error(where + ": state must be a JSON object");
  if (auto st = read_times(doc, "sources", where, s.source_evicted_at); !st) return st.error();
  if (auto st = read_times(doc, "workloads", where, s.workload_moved_at); !st) return st.error();
  if (doc.contains("arrivals")) {
    if (!doc["arrivals"].is_object()) return make_error(where + ": arrivals must be a mapping of node to {at, cpu, memory}");
    for (const auto& [node, v] : doc["arrivals"].items()) {
      std::string at = where + ": arrivals." + node;
      if (!v.is_object() || !v.contains("at") || !v["at"].is_string() || !v.value("cpu", json()).is_number() ||
          !v.value("memory", json()).is_number())
        return make_error(at + " must be {at: RFC 3339 time, cpu: number, memory: number}");
      auto t = parse_rfc3339(v["at"].get<std::string>());
      if (!t) return make_error(at + ".at: " + t.message());
      s.arrivals[node] = Arrival{*t, v["cpu"].get<double>(), v["memory"].get<double>()};
    }
  }
  return s;
}

}  // namespace weft::descheduler
