#include "descheduler/core/load.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <set>

#include "kube/client/json_cursor.h"
#include "kube/client/json_reader.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

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

// A ratio must be a finite number in 0..1 (a little above 1 is rounding noise).
std::string ratio_problem(const json& v) {
  if (!v.is_number()) return "must be a number";
  double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > 1.05) return "must be a ratio between 0 and 1";
  return "";
}

Status parse_time(const json& e, const char* key, std::optional<TimePoint>& into,
                  const std::function<Error(const std::string&, const std::string&)>& bad, const std::string& where) {
  if (!e.contains(key) || e[key].is_null()) return {};
  if (!e[key].is_string()) return bad(where + "." + key, "must be an RFC 3339 time");
  auto at = parse_rfc3339(e[key].get<std::string>());
  if (!at) return bad(where + "." + key, at.message());
  into = *at;
  return {};
}

}  // namespace

namespace {

Status add_file_node(const json& e, const std::string& where0, LoadReport& report,
                     const std::function<Error(const std::string&, const std::string&)>& bad) {
  std::string where = where0;
  if (!e.is_object()) return bad(where, "must be a mapping");
  if (!e.contains("name") || !e["name"].is_string() || e["name"].get<std::string>().empty())
    return bad(where + ".name", "must be a node name");
  std::string name = e["name"].get<std::string>();
  where += " (" + name + ")";
  for (const auto& [key, _] : e.items())
    if (key != "name" && key != "cpu" && key != "memory" && key != "at" && key != "cpu_at" && key != "memory_at" &&
        key != "source" && key != "window_s" && key != "extended")
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
  std::optional<TimePoint> at;
  for (auto [key, into] : {std::pair{"at", &at}, std::pair{"cpu_at", &s.cpu_at}, std::pair{"memory_at", &s.memory_at}})
    if (auto st = parse_time(e, key, *into, bad, where); !st) return st.error();
  if (e.contains("extended")) {
    const json& ext = e["extended"];
    if (!ext.is_object()) return bad(where + ".extended", "must be a mapping of resource name to ratio");
    for (const auto& [res, v] : ext.items()) {
      if (auto p = ratio_problem(v); !p.empty()) return bad(where + ".extended." + res, p);
      s.extended[res] = {v.get<double>(), at};
    }
  }
  if (!missing.empty()) {
    report.invalid[name] = missing;
    return {};
  }
  s.cpu = e["cpu"].get<double>();
  s.memory = e["memory"].get<double>();
  if (!s.cpu_at) s.cpu_at = at;
  if (!s.memory_at) s.memory_at = at;
  report.nodes[name] = s;
  return {};
}

// A pod entry in one pass over its fields: there may be 100,000 of them. Pods of one
// scrape share their time, so the last time text is parsed once.
struct TimeCache {
  std::string text;
  TimePoint at;
  std::string read;   // the time text being read, its room kept from entry to entry
  // The time `t` spells: the last one again when it is the same text.
  Result<TimePoint> of(const std::string& t) {
    if (t != text) {
      auto parsed = parse_rfc3339(t);
      if (!parsed) return parsed.error();
      text = t;
      at = *parsed;
    }
    return at;
  }
};

Status add_file_pod(const json& e, size_t index, LoadReport& report,
                    const std::function<Error(const std::string&, const std::string&)>& bad, TimeCache& times) {
  auto where = [&](const std::string& key) {
    std::string w = "pods[" + std::to_string(index) + "]";
    if (e.is_object() && e.contains("namespace") && e.contains("name") && e["namespace"].is_string() &&
        e["name"].is_string())
      w += " (" + e["namespace"].get<std::string>() + "/" + e["name"].get<std::string>() + ")";
    return key.empty() ? w : w + "." + key;
  };
  if (!e.is_object()) return bad(where(""), "must be a mapping");
  const std::string* ns = nullptr;
  const std::string* name = nullptr;
  PodUsage u;
  std::optional<TimePoint> at;
  for (const auto& [k, v] : e.items()) {
    if (k == "namespace" || k == "name") {
      if (!v.is_string() || v.get_ref<const std::string&>().empty()) return bad(where(k), "must be a non-empty string");
      (k == "name" ? name : ns) = &v.get_ref<const std::string&>();
    } else if (k == "cpu" || k == "memory") {
      if (v.is_null()) continue;
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
        return bad(where(k), std::string("must be a non-negative number (") + (k == "cpu" ? "cores" : "bytes") + ")");
      (k == "cpu" ? u.cpu_cores : u.memory_bytes) = v.get<double>();
    } else if (k == "at" || k == "cpu_at" || k == "memory_at") {
      if (v.is_null()) continue;
      if (!v.is_string()) return bad(where(k), "must be an RFC 3339 time");
      auto t = times.of(v.get_ref<const std::string&>());
      if (!t) return bad(where(k), t.message());
      (k == "at" ? at : k == "cpu_at" ? u.cpu_at : u.memory_at) = *t;
    } else {
      return bad(where(k), "unknown field");
    }
  }
  if (!ns) return bad(where("namespace"), "must be a non-empty string");
  if (!name) return bad(where("name"), "must be a non-empty string");
  if (!u.cpu_at) u.cpu_at = at;
  if (!u.memory_at) u.memory_at = at;
  if (!report.pods.emplace(*ns + "/" + *name, u).second) return bad(where(""), "pod listed twice");
  return {};
}

// A pod entry straight from its text, checked as it is read, in the common clean case:
// only known keys, each once, of the types add_file_pod takes, a name and namespace, a new
// pod. The entry is the value at `start` in `text`; returns where it ends once added.
// Anything else (even what add_file_pod would accept, such as a negative zero, or text
// that is not JSON) returns npos with nothing added, and the entry is checked and read as
// a tree, whose verdict and words stand.
size_t added_clean_pod(std::string_view text, size_t start, LoadReport& report, TimeCache& times) {
  static constexpr std::string_view kKeys[] = {"namespace", "name", "cpu", "memory", "at", "cpu_at", "memory_at"};
  constexpr size_t kNotAdded = std::string_view::npos;
  kube::JsonCursor c(text, start);
  if (c.peek() != '{') return kNotAdded;
  std::string ns, name;
  std::string& time_text = times.read;
  PodUsage u;
  std::optional<TimePoint> at;
  unsigned seen = 0;
  bool clean = true;
  auto s = c.members("", [&](std::string_view key) -> Status {
    const auto which = static_cast<size_t>(std::find(std::begin(kKeys), std::end(kKeys), key) - std::begin(kKeys));
    const char kind = c.peek();
    if (which == std::size(kKeys) || (seen >> which & 1u)) clean = false;
    seen |= 1u << which;
    if (!clean || kind == 'n') return clean ? c.pass_over() : make_error("");
    if (which < 2) {
      if (kind != '"') return clean = false, make_error("");
      return c.string(which == 0 ? ns : name);
    }
    if (which < 4) {
      auto number = c.skip();
      if (!number) return number.error();
      double v = 0;
      const char* end = number->data() + number->size();
      const auto parsed = std::from_chars(number->data(), end, v);
      if (kind != '0' || number->front() == '-' || parsed.ec != std::errc() || parsed.ptr != end || !std::isfinite(v))
        return clean = false, make_error("");
      (which == 2 ? u.cpu_cores : u.memory_bytes) = v;
      return {};
    }
    if (kind != '"') return clean = false, make_error("");
    if (auto st = c.string(time_text); !st) return st;
    auto t = times.of(time_text);
    if (!t) return clean = false, make_error("");
    (which == 4 ? at : which == 5 ? u.cpu_at : u.memory_at) = *t;
    return {};
  });
  if (!s || !clean || ns.empty() || name.empty()) return kNotAdded;
  if (!u.cpu_at) u.cpu_at = at;
  if (!u.memory_at) u.memory_at = at;
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  return report.pods.emplace(std::move(key), u).second ? c.pos() : kNotAdded;
}

}  // namespace

Result<LoadReport> parse_load_file(std::string_view text, const std::string& file) {
  auto bad = [&](const std::string& where, const std::string& what) {
    return make_error("load file " + file + ": " + where + ": " + what);
  };
  LoadReport report;
  report.source_name = "file " + file;
  // A pod entry takes about a hundred bytes: buckets for more keep the table from rehashing
  // and its chains short.
  report.pods.reserve(text.size() / 64);
  // Entries of "nodes" and "pods" are read one at a time, each as a small tree, and dropped.
  size_t index[2] = {0, 0};
  bool seen[2] = {false, false};
  int given[2] = {0, 0};
  Status failed;
  std::string unknown;   // the first key that is neither, reported after the entries
  bool pods_given = false;
  TimeCache times;
  kube::JsonCursor c(text);
  if (c.peek() != '{') {
    if (auto s = c.pass_over(); !s) return make_error("load file " + file + ": " + s.message());
    if (auto s = c.end(); !s) return make_error("load file " + file + ": " + s.message());
    return bad("nodes", "must be a list of {name, cpu, memory, at}");
  }
  auto read = c.members("load file", [&](std::string_view key) -> Status {
    const int which = key == "nodes" ? 0 : key == "pods" ? 1 : -1;
    // Twice is refused rather than read as one list (or the last, as a tree would keep it).
    if (which >= 0 && given[which]++) return make_error(std::string(key) + ": given twice");
    if (which < 0 && unknown.empty()) unknown = key;
    if (which == 1) pods_given = true;
    if (which < 0 || c.peek() != '[') return c.pass_over();
    seen[which] = true;
    return c.elements(key, [&](size_t) -> Status {
      const size_t at = index[which]++;
      if (failed && which == 1 && c.peek() == '{') {
        // One pass over a clean entry, its text checked as it is read.
        if (const size_t end = added_clean_pod(text, c.pos(), report, times); end != std::string_view::npos) {
          c.passed(end);
          return {};
        }
      }
      auto entry = c.skip();
      if (!entry) return entry.error();
      if (!failed) return {};
      auto e = kube::read_json(*entry);
      if (!e) return e.error();
      failed = which == 0 ? add_file_node(*e, "nodes[" + std::to_string(at) + "]", report, bad)
                          : add_file_pod(*e, at, report, bad, times);
      return {};
    });
  });
  if (read) read = c.end();
  if (!read) return make_error("load file " + file + ": " + read.message());
  if (!failed) return failed.error();
  if (!seen[0]) return bad("nodes", "must be a list of {name, cpu, memory, at}");
  if (pods_given && !seen[1]) return bad("pods", "must be a list of {namespace, name, cpu, memory, at}");
  if (!unknown.empty()) return bad(unknown, "unknown field");
  return report;
}

Result<PromVector> parse_prometheus_vector(const std::string& body, const std::vector<std::string>& labels) {
  PromVector out;
  std::string problem;
  json doc;
  try {
    // {"status", "data": {"resultType", "result": [series...]}}: each series is joined
    // as it ends and dropped, so a response with a series per pod never is one tree.
    bool in_result = false;
    doc = json::parse(body, [&](int depth, json::parse_event_t event, json& parsed) {
      if (depth == 2 && event == json::parse_event_t::key) in_result = parsed.get<std::string>() == "result";
      if (!(in_result && depth == 3 && event == json::parse_event_t::object_end)) return true;
      if (!problem.empty()) return false;
      std::string key;
      const json& metric = member(parsed, "metric");
      if (!metric.is_object()) return false;
      for (const auto& l : labels) {
        auto it = metric.find(l);
        if (it == metric.end() || !it->is_string()) return false;   // cannot be joined
        key += (key.empty() ? "" : "/") + it->get<std::string>();
      }
      const json& value = member(parsed, "value");
      if (!value.is_array() || value.size() != 2 || !value[0].is_number() || !value[1].is_string()) {
        problem = "series " + key + ": malformed value";
        return false;
      }
      PromPoint p;
      const std::string& text = value[1].get_ref<const std::string&>();
      char* end = nullptr;
      p.value = std::strtod(text.c_str(), &end);
      if (end == text.c_str()) p.value = NAN;
      auto at = time_of_seconds(value[0].get<double>());
      if (!at) {
        problem = "series " + key + ": sample time " + value[0].dump() + " is out of range";
        return false;
      }
      p.at = *at;
      out[key] = p;
      return false;
    });
  } catch (const json::exception& e) {   // parse_error, or out_of_range for a number too large
    return make_error(std::string("response is not JSON: ") + e.what());
  }
  if (!doc.is_object()) return make_error("response is not a JSON object");
  // A peer's response: anything not shaped as documented is an error, never an exception.
  if (text_member(doc, "status") != "success")
    return make_error("query failed: " + text_member(doc, "errorType") + ": " + text_member(doc, "error"));
  const json& data = member(doc, "data");
  if (text_member(data, "resultType") != "vector")
    return make_error("result type '" + text_member(data, "resultType") + "' is not vector (use an instant-vector query)");
  const json& result = member(data, "result");
  if (!result.is_array() && !result.is_null()) return make_error("data.result is not a list");
  if (!problem.empty()) return make_error(problem);
  return out;
}

namespace {

// The node's readings of the resources other than cpu and memory; a missing, bad or
// undated one is left out (the planner calls the node unknown when it needs it).
void add_extended(const std::map<std::string, ResourceResults>& results, const std::string& node, LoadSample& s) {
  for (const auto& [res, r] : results) {
    if (res == "cpu" || res == "memory") continue;
    auto v = r.value.find(node);
    auto t = r.newest.find(node);
    if (v == r.value.end() || t == r.newest.end() || !std::isfinite(v->second.value) || v->second.value < 0 ||
        v->second.value > 1.05 || !time_of_seconds(t->second.value))
      continue;
    s.extended[res] = {v->second.value, time_of_seconds(t->second.value)};
  }
}

}  // namespace

LoadReport join_prometheus(const std::map<std::string, ResourceResults>& results, const std::string& source_name) {
  LoadReport report;
  report.source_name = source_name;
  std::set<std::string> named;
  for (const auto& [_, r] : results)
    for (const auto* m : {&r.value, &r.newest})
      for (const auto& [node, _] : *m) named.insert(node);
  static const ResourceResults none;
  auto of = [&](const char* res) -> const ResourceResults& {
    auto it = results.find(res);
    return it == results.end() ? none : it->second;
  };
  const ResourceResults& cpu = of("cpu");
  const ResourceResults& memory = of("memory");
  // cpu and memory are required when asked for (LoadAware); a query measuring
  // MetricResource alone (LowNodeUtilization's) asks for neither.
  const bool basic = results.count("cpu") || results.count("memory");
  for (const std::string& node : named) {
    if (!basic) {
      LoadSample s;
      s.source = "prometheus";
      add_extended(results, node, s);
      report.nodes[node] = s;
      continue;
    }
    struct Part {
      const PromVector& series;
      const char* missing;
      const PromPoint* point = nullptr;
    };
    Part parts[] = {{cpu.value, "no cpu series"},
                    {memory.value, "no memory series"},
                    {cpu.newest, "no recent cpu sample"},
                    {memory.newest, "no recent memory sample"}};
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
    add_extended(results, node, s);
    report.nodes[node] = s;
  }
  return report;
}

void join_pod_usage(const PromVector& cpu, const PromVector& memory, const PromVector& cpu_newest,
                    const PromVector& memory_newest, LoadReport& report) {
  auto put = [&](const PromVector& values, const PromVector& newest, bool is_cpu) {
    for (const auto& [pod, point] : values) {
      // A reading without its newest sample time cannot be judged fresh: requests size the pod.
      auto t = newest.find(pod);
      if (!std::isfinite(point.value) || point.value < 0 || t == newest.end() || !time_of_seconds(t->second.value)) continue;
      PodUsage& u = report.pods[pod];
      (is_cpu ? u.cpu_cores : u.memory_bytes) = point.value;
      (is_cpu ? u.cpu_at : u.memory_at) = time_of_seconds(t->second.value);
    }
  };
  put(cpu, cpu_newest, true);
  put(memory, memory_newest, false);
}

}  // namespace weft::descheduler
