// Node load as the descheduler sees it: a cpu and memory ratio (0..1) per node with the
// time it was measured. Parsers only; fetching lives in the binary.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::descheduler {

using TimePoint = std::chrono::system_clock::time_point;

struct LoadSample {
  double cpu = 0;      // busy ratio 0..1
  double memory = 0;   // used ratio 0..1
  std::optional<TimePoint> at;   // absent: taken to be current
  std::string source;  // "ebpf", "procfs", "prometheus", "file"
};

struct LoadReport {
  std::map<std::string, LoadSample> nodes;
  // Per-node reasons a sample was rejected (bad annotation, NaN, out of range).
  std::map<std::string, std::string> invalid;
  // Set when the whole source failed (Prometheus down): every node is unknown.
  std::string source_error;
  std::string source_name;   // "prometheus http://...", "file x.json", "annotations"
};

// RFC 3339 ("2026-11-23T03:00:00Z", "...+02:00", fractional seconds).
Result<TimePoint> parse_rfc3339(const std::string& text);
std::string format_rfc3339(TimePoint t);

// {"nodes":[{"name","cpu","memory","at"}]}. Errors name the file and the entry.
Result<LoadReport> parse_load_file(const std::string& text, const std::string& file);

// The weft.dev/load annotation: {"cpu","memory","window_s","source","at"}.
Result<LoadSample> parse_load_annotation(const std::string& text);

// A Prometheus /api/v1/query response with resultType vector: label value -> (value, time).
struct PromPoint {
  double value = 0;
  TimePoint at;
};
Result<std::map<std::string, PromPoint>> parse_prometheus_vector(const std::string& body, const std::string& label);

// Joins the three queries' results (cpu, memory, newest sample time) into a report.
LoadReport join_prometheus(const std::map<std::string, PromPoint>& cpu, const std::map<std::string, PromPoint>& memory,
                           const std::map<std::string, PromPoint>& freshness, const std::string& source_name);

}  // namespace weft::descheduler
