#include "kube/load_annotation.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace weft::kube {
namespace {

using nlohmann::json;

double round2(double v) { return std::round(v * 100) / 100; }

Result<double> ratio(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return make_error(std::string(key) + ": missing");
  if (!it->is_number()) return make_error(std::string(key) + ": " + it->dump() + " is not a number");
  double v = it->get<double>();
  if (!std::isfinite(v) || v < 0 || v > 1.05) return make_error(std::string(key) + ": " + it->dump() + " is not a ratio in 0..1");
  return std::min(v, 1.0);
}

Result<std::optional<TimePoint>> time_of(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::optional<TimePoint>{};
  if (!it->is_string()) return make_error(std::string(key) + ": " + it->dump() + " is not an RFC 3339 time");
  auto t = parse_rfc3339(it->get<std::string>());
  if (!t) return wrap(t.error(), key);
  return std::optional<TimePoint>{*t};
}

}  // namespace

std::string encode_load_annotation(const LoadAnnotation& load) {
  json j = json::object();
  j["cpu"] = round2(load.cpu);
  j["memory"] = round2(load.memory);
  j["window_s"] = static_cast<long long>(std::llround(load.window_s));
  j["source"] = load.source;
  if (format_rfc3339(load.cpu_at) == format_rfc3339(load.memory_at)) {
    j["at"] = format_rfc3339(load.cpu_at);
  } else {
    j["cpu_at"] = format_rfc3339(load.cpu_at);
    j["memory_at"] = format_rfc3339(load.memory_at);
  }
  return j.dump();
}

Result<LoadAnnotation> decode_load_annotation(std::string_view text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return make_error("not JSON");
  if (!doc.is_object()) return make_error("not a JSON object");
  LoadAnnotation out;
  auto cpu = ratio(doc, "cpu");
  if (!cpu) return cpu.error();
  auto memory = ratio(doc, "memory");
  if (!memory) return memory.error();
  out.cpu = *cpu;
  out.memory = *memory;
  if (auto w = doc.find("window_s"); w != doc.end() && !w->is_null()) {
    if (!w->is_number() || !std::isfinite(w->get<double>()) || w->get<double>() < 0)
      return make_error("window_s: " + w->dump() + " is not a number of seconds");
    out.window_s = w->get<double>();
  }
  if (auto s = doc.find("source"); s != doc.end() && !s->is_null()) {
    if (!s->is_string()) return make_error("source: " + s->dump() + " is not a string");
    out.source = s->get<std::string>();
  }
  auto at = time_of(doc, "at");
  if (!at) return at.error();
  auto cpu_at = time_of(doc, "cpu_at");
  if (!cpu_at) return cpu_at.error();
  auto memory_at = time_of(doc, "memory_at");
  if (!memory_at) return memory_at.error();
  // A reading without a time cannot be judged fresh.
  if (!*cpu_at && !*at) return make_error("at: missing (cpu has no measurement time)");
  if (!*memory_at && !*at) return make_error("at: missing (memory has no measurement time)");
  out.cpu_at = cpu_at->value_or(at->value_or(TimePoint{}));
  out.memory_at = memory_at->value_or(at->value_or(TimePoint{}));
  return out;
}

Status check_load_fresh(const LoadAnnotation& load, TimePoint now, Duration max_age) {
  auto nanos = [](TimePoint t) { return std::chrono::duration_cast<Duration>(t.time_since_epoch()).count(); };
  for (auto [what, at] : {std::pair{"cpu", load.cpu_at}, std::pair{"memory", load.memory_at}}) {
    // Two times 300 years apart differ by more than int64 nanoseconds hold.
    const __int128 age = static_cast<__int128>(nanos(now)) - nanos(at);
    const __int128 limit = max_age.count();
    if (age <= limit && -age <= limit) continue;
    const __int128 whole_seconds = (age < 0 ? -age : age) / 1'000'000'000 * 1'000'000'000;
    const Duration shown(static_cast<int64_t>(std::min<__int128>(whole_seconds, std::numeric_limits<int64_t>::max())));
    return make_error(std::string("stale: ") + what + " measured " + format_rfc3339(at) + ", " +
                      format_duration(shown) + (age > 0 ? " ago, older than " : " in the future, beyond ") +
                      format_duration(max_age));
  }
  return {};
}

}  // namespace weft::kube
