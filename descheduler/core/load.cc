#include "descheduler/core/load.h"

#include <cmath>
#include <set>

namespace weft::descheduler {
namespace {

using nlohmann::json;

// A ratio must be a finite number in 0..1 (a little above 1 is rounding noise).
std::string ratio_problem(const json& v) {
  if (!v.is_number()) return "must be a number";
  double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > 1.05) return "must be a ratio between 0 and 1";
  return "";
}

// Seconds since the epoch as a time, when TimePoint (int64 nanoseconds) can hold it.
std::optional<TimePoint> time_of_seconds(double s) {
  if (!std::isfinite(s) || std::fabs(s) >= 9.2e9) return std::nullopt;
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(s)));
}

// A member of a JSON object, null when there is none (no copy, no exception).
const json& member(const json& obj, const char* key) {
  static const json none;
  if (!obj.is_object()) return none;
  auto it = obj.find(key);
  return it == obj.end() ? none : *it;
}

// A string member of a JSON object, "" when the value is not an object or the member not a string.
std::string text_member(const json& obj, const char* key) {
  const json& v = member(obj, key);
  return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace

Result<LoadReport> parse_load_file(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {   // parse_error, or out_of_range for a number too large
    return make_error("load file " + file + ": " + e.what());
  }
  auto bad = [&](const std::string& where, const std::string& what) {
    return make_error("load file " + file + ": " + where + ": " + what);
  };
  if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array())
    return bad("nodes", "must be a list of {name, cpu, memory, at}");
  LoadReport report;
  report.source_name = "file " + file;
  const json& nodes = doc["nodes"];
  for (size_t i = 0; i < nodes.size(); ++i) {
    const json& e = nodes[i];
    std::string where = "nodes[" + std::to_string(i) + "]";
    if (!e.is_object()) return bad(where, "must be a mapping");
    if (!e.contains("name") || !e["name"].is_string() || e["name"].get<std::string>().empty())
      return bad(where + ".name", "must be a node name");
    std::string name = e["name"].get<std::string>();
    where += " (" + name + ")";
    for (const auto& [key, _] : e.items())
      if (key != "name" && key != "cpu" && key != "memory" && key != "at" && key != "cpu_at" && key != "memory_at" &&
          key != "source" && key != "window_s")
        return bad(where + "." + key, "unknown field");
    if (report.nodes.count(name) || report.invalid.count(name)) return bad(where, "node listed twice");
    LoadSample s;
    s.source = "file";
    std::string missing;
    for (const char* key : {"cpu", "memory"}) {
      if (!e.contains(key) || e[key].is_null()) {
        if (missing.empty()) missing = std::string("no ") + key + " reading in " + report.source_name;
        continue;
      }
      if (auto p = ratio_problem(e[key]); !p.empty()) return bad(where + "." + key, p);
    }
    auto time_of = [&](const char* key, std::optional<TimePoint>& into) -> Status {
      if (!e.contains(key) || e[key].is_null()) return {};
      if (!e[key].is_string()) return bad(where + "." + key, "must be an RFC 3339 time");
      auto at = parse_rfc3339(e[key].get<std::string>());
      if (!at) return bad(where + "." + key, at.message());
      into = *at;
      return {};
    };
    std::optional<TimePoint> at;
    for (auto [key, into] : {std::pair{"at", &at}, std::pair{"cpu_at", &s.cpu_at}, std::pair{"memory_at", &s.memory_at}})
      if (auto st = time_of(key, *into); !st) return st.error();
    if (!missing.empty()) {
      report.invalid[name] = missing;
      continue;
    }
    s.cpu = e["cpu"].get<double>();
    s.memory = e["memory"].get<double>();
    if (!s.cpu_at) s.cpu_at = at;
    if (!s.memory_at) s.memory_at = at;
    report.nodes[name] = s;
  }
  return report;
}

Result<LoadSample> parse_load_annotation(const std::string& text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {   // parse_error, or out_of_range for a number too large
    return make_error(std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object()) return make_error("not a JSON object");
  LoadSample s;
  for (const char* key : {"cpu", "memory"}) {
    if (!doc.contains(key) || doc[key].is_null()) return make_error(std::string(key) + " is missing");
    if (auto p = ratio_problem(doc[key]); !p.empty()) return make_error(std::string(key) + " " + p);
  }
  s.cpu = doc["cpu"].get<double>();
  s.memory = doc["memory"].get<double>();
  s.source = doc.contains("source") && doc["source"].is_string() ? doc["source"].get<std::string>() : "annotation";
  auto time_of = [&](const char* key) -> Result<std::optional<TimePoint>> {
    if (!doc.contains(key) || doc[key].is_null()) return std::optional<TimePoint>{};
    if (!doc[key].is_string()) return make_error(std::string(key) + " must be an RFC 3339 time");
    auto t = parse_rfc3339(doc[key].get<std::string>());
    if (!t) return make_error(std::string(key) + ": " + t.message());
    return std::optional<TimePoint>{*t};
  };
  auto at = time_of("at");
  auto cpu_at = time_of("cpu_at");
  auto memory_at = time_of("memory_at");
  for (const auto* r : {&at, &cpu_at, &memory_at})
    if (!*r) return r->error();
  s.cpu_at = cpu_at->has_value() ? *cpu_at : *at;
  s.memory_at = memory_at->has_value() ? *memory_at : *at;
  // An annotation without a time cannot be judged fresh.
  if (!s.cpu_at) return make_error("at is missing (cpu has no measurement time)");
  if (!s.memory_at) return make_error("at is missing (memory has no measurement time)");
  return s;
}

Result<std::map<std::string, PromPoint>> parse_prometheus_vector(const std::string& body, const std::string& label) {
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::exception& e) {   // parse_error, or out_of_range for a number too large
    return make_error(std::string("response is not JSON: ") + e.what());
  }
  // A peer's response: anything not shaped as documented is an error, never an exception.
  if (!doc.is_object()) return make_error("response is not a JSON object");
  if (text_member(doc, "status") != "success")
    return make_error("query failed: " + text_member(doc, "errorType") + ": " + text_member(doc, "error"));
  const json& data = member(doc, "data");
  if (text_member(data, "resultType") != "vector")
    return make_error("result type '" + text_member(data, "resultType") + "' is not vector (use an instant-vector query)");
  const json& result = member(data, "result");
  if (!result.is_array() && !result.is_null()) return make_error("data.result is not a list");
  std::map<std::string, PromPoint> out;
  for (const auto& r : result) {
    const json& metric = member(r, "metric");
    if (!metric.is_object()) continue;
    auto it = metric.find(label);
    if (it == metric.end() || !it->is_string()) continue;   // series without the node label cannot be joined
    const json& value = member(r, "value");
    if (!value.is_array() || value.size() != 2 || !value[0].is_number() || !value[1].is_string())
      return make_error("series " + it->get<std::string>() + ": malformed value");
    PromPoint p;
    const std::string& text = value[1].get_ref<const std::string&>();
    char* end = nullptr;
    p.value = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) p.value = NAN;
    auto at = time_of_seconds(value[0].get<double>());
    if (!at) return make_error("series " + it->get<std::string>() + ": sample time " + value[0].dump() + " is out of range");
    p.at = *at;
    out[it->get<std::string>()] = p;
  }
  return out;
}

LoadReport join_prometheus(const PrometheusResults& results, const std::string& source_name) {
  LoadReport report;
  report.source_name = source_name;
  std::set<std::string> named;
  for (const auto* m : {&results.cpu, &results.memory, &results.cpu_newest, &results.memory_newest})
    for (const auto& [node, _] : *m) named.insert(node);
  for (const std::string& node : named) {
    struct Part {
      const std::map<std::string, PromPoint>& series;
      const char* missing;
      const PromPoint* point = nullptr;
    };
    Part parts[] = {{results.cpu, "no cpu series"},
                    {results.memory, "no memory series"},
                    {results.cpu_newest, "no recent cpu sample"},
                    {results.memory_newest, "no recent memory sample"}};
    std::string why;
    for (Part& p : parts) {
      auto it = p.series.find(node);
      if (it == p.series.end()) {
        why = p.missing;
        break;
      }
      p.point = &it->second;
    }
    if (why.empty())
      for (auto [what, v] : {std::pair{"cpu", parts[0].point->value}, std::pair{"memory", parts[1].point->value}})
        if (!std::isfinite(v) || v < 0 || v > 1.05) why = std::string(what) + " value is not a ratio";
    if (why.empty())
      for (auto [what, v] : {std::pair{"cpu", parts[2].point->value}, std::pair{"memory", parts[3].point->value}})
        if (!time_of_seconds(v)) why = std::string("newest ") + what + " sample time is not a time";
    if (!why.empty()) {
      report.invalid[node] = why;
      continue;
    }
    LoadSample s;
    s.cpu = parts[0].point->value;
    s.memory = parts[1].point->value;
    // The freshness queries yield each reading's newest sample time (seconds) as the value.
    s.cpu_at = time_of_seconds(parts[2].point->value);
    s.memory_at = time_of_seconds(parts[3].point->value);
    s.source = "prometheus";
    report.nodes[node] = s;
  }
  return report;
}

}  // namespace weft::descheduler
