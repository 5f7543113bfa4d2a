#include "descheduler/core/load.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace weft::descheduler {
namespace {

using nlohmann::json;

int64_t days_from_civil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<int64_t>(era) * 146097 + static_cast<int64_t>(doe) - 719468;
}

// A ratio must be a finite number in 0..1 (a little above 1 is rounding noise).
std::string ratio_problem(const json& v) {
  if (!v.is_number()) return "must be a number";
  double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > 1.05) return "must be a ratio between 0 and 1";
  return "";
}

}  // namespace

Result<TimePoint> parse_rfc3339(const std::string& text) {
  int y, mo, d, h, mi;
  double s;
  int n = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 &&
      std::sscanf(text.c_str(), "%4d-%2d-%2dt%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &s, &n) != 6)
    return make_error("time '" + text + "' is not RFC 3339 (2026-01-02T15:04:05Z)");
  std::string zone = text.substr(static_cast<size_t>(n));
  int offset = 0;
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int zh = 0, zm = 0;
    if (std::sscanf(zone.c_str() + 1, "%2d:%2d", &zh, &zm) != 2) return make_error("time '" + text + "': bad zone");
    offset = (zh * 60 + zm) * 60 * (zone[0] == '-' ? -1 : 1);
  } else {
    return make_error("time '" + text + "' has no zone (end with Z or +hh:mm)");
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s < 0 || s >= 61)
    return make_error("time '" + text + "' is out of range");
  double secs = static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))) * 86400 +
                h * 3600 + mi * 60 + s - offset;
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(secs)));
}

std::string format_rfc3339(TimePoint t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<LoadReport> parse_load_file(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
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
      if (key != "name" && key != "cpu" && key != "memory" && key != "at" && key != "source" && key != "window_s")
        return bad(where + "." + key, "unknown field");
    LoadSample s;
    s.source = "file";
    for (const char* key : {"cpu", "memory"}) {
      if (!e.contains(key)) return bad(where + "." + key, "is required");
      if (auto p = ratio_problem(e[key]); !p.empty()) return bad(where + "." + key, p);
    }
    s.cpu = e["cpu"].get<double>();
    s.memory = e["memory"].get<double>();
    if (e.contains("at") && !e["at"].is_null()) {
      if (!e["at"].is_string()) return bad(where + ".at", "must be an RFC 3339 time");
      auto at = parse_rfc3339(e["at"].get<std::string>());
      if (!at) return bad(where + ".at", at.message());
      s.at = *at;
    }
    if (report.nodes.count(name)) return bad(where, "node listed twice");
    report.nodes[name] = s;
  }
  return report;
}

Result<LoadSample> parse_load_annotation(const std::string& text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return make_error(std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object()) return make_error("not a JSON object");
  LoadSample s;
  for (const char* key : {"cpu", "memory"}) {
    if (!doc.contains(key)) return make_error(std::string(key) + " is missing");
    if (auto p = ratio_problem(doc[key]); !p.empty()) return make_error(std::string(key) + " " + p);
  }
  s.cpu = doc["cpu"].get<double>();
  s.memory = doc["memory"].get<double>();
  s.source = doc.contains("source") && doc["source"].is_string() ? doc["source"].get<std::string>() : "annotation";
  if (!doc.contains("at") || !doc["at"].is_string()) return make_error("at is missing (an annotation without a time cannot be judged fresh)");
  auto at = parse_rfc3339(doc["at"].get<std::string>());
  if (!at) return make_error("at: " + at.message());
  s.at = *at;
  return s;
}

Result<std::map<std::string, PromPoint>> parse_prometheus_vector(const std::string& body, const std::string& label) {
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::parse_error& e) {
    return make_error(std::string("response is not JSON: ") + e.what());
  }
  if (doc.value("status", "") != "success")
    return make_error("query failed: " + doc.value("errorType", std::string("?")) + ": " + doc.value("error", std::string("?")));
  const json& data = doc.value("data", json::object());
  if (data.value("resultType", "") != "vector")
    return make_error("result type '" + data.value("resultType", std::string()) + "' is not vector (use an instant-vector query)");
  std::map<std::string, PromPoint> out;
  for (const auto& r : data.value("result", json::array())) {
    const json& metric = r.value("metric", json::object());
    auto it = metric.find(label);
    if (it == metric.end() || !it->is_string()) continue;   // series without the node label cannot be joined
    const json& value = r.value("value", json::array());
    if (!value.is_array() || value.size() != 2 || !value[0].is_number() || !value[1].is_string())
      return make_error("series " + it->get<std::string>() + ": malformed value");
    PromPoint p;
    const std::string& text = value[1].get_ref<const std::string&>();
    char* end = nullptr;
    p.value = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) p.value = NAN;
    p.at = TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(value[0].get<double>())));
    out[it->get<std::string>()] = p;
  }
  return out;
}

LoadReport join_prometheus(const std::map<std::string, PromPoint>& cpu, const std::map<std::string, PromPoint>& memory,
                           const std::map<std::string, PromPoint>& freshness, const std::string& source_name) {
  LoadReport report;
  report.source_name = source_name;
  for (const auto& [node, c] : cpu) {
    auto m = memory.find(node);
    if (m == memory.end()) {
      report.invalid[node] = "no memory series";
      continue;
    }
    auto f = freshness.find(node);
    if (f == freshness.end()) {
      report.invalid[node] = "no recent sample";
      continue;
    }
    for (auto [what, v] : {std::pair{"cpu", c.value}, std::pair{"memory", m->second.value}})
      if (!std::isfinite(v) || v < 0 || v > 1.05) report.invalid[node] = std::string(what) + " value is not a ratio";
    if (report.invalid.count(node)) continue;
    LoadSample s;
    s.cpu = c.value;
    s.memory = m->second.value;
    // The freshness query yields the newest sample time in seconds as its value.
    s.at = TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(f->second.value)));
    s.source = "prometheus";
    report.nodes[node] = s;
  }
  for (const auto& [node, _] : memory)
    if (!cpu.count(node) && !report.invalid.count(node)) report.invalid[node] = "no cpu series";
  return report;
}

}  // namespace weft::descheduler
