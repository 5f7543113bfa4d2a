// Node load as the descheduler sees it: a cpu and memory ratio (0..1) per node with the
// time it was measured. Parsers only; fetching lives in the binary.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/time.h"

namespace weft::descheduler {

using kube::format_rfc3339;
using kube::parse_rfc3339;
using kube::TimePoint;

struct LoadSample {
  double cpu = 0;      // busy ratio 0..1
  double memory = 0;   // used ratio 0..1
  // When each was measured; absent: taken to be current. Both count for freshness: a
  // node is only as fresh as its older reading.
  std::optional<TimePoint> cpu_at, memory_at;
  std::string source;  // "ebpf", "procfs", "prometheus", "file"
};

struct LoadReport {
  std::map<std::string, LoadSample> nodes;
  // Per-node reasons a sample was rejected (bad annotation, NaN, out of range).
  // A node with a reading missing (no memory value, no memory series) is listed here too.
  std::map<std::string, std::string> invalid;
  // Set when the whole source failed (Prometheus down): every node is unknown.
  std::string source_error;
  std::string source_name;   // "prometheus http://...", "file x.json", "annotations"
};

// {"nodes":[{"name","cpu","memory","at"}]}; "cpu_at"/"memory_at" override "at" for one
// reading. An entry without cpu or memory (absent or null) leaves its node unknown
// (report.invalid); malformed values are errors naming the file and the entry.
Result<LoadReport> parse_load_file(const std::string& text, const std::string& file);

// The weft.dev/load annotation: {"cpu","memory","window_s","source","at"}, optional
// "cpu_at"/"memory_at" as in the file. Both readings and a time are required.
Result<LoadSample> parse_load_annotation(const std::string& text);

// A Prometheus /api/v1/query response with resultType vector: label value -> (value, time).
struct PromPoint {
  double value = 0;
  TimePoint at;
};
Result<std::map<std::string, PromPoint>> parse_prometheus_vector(const std::string& body, const std::string& label);

// The four instant queries' results: the averaged readings and, per reading, the time of
// its newest sample (as the value).
struct PrometheusResults {
  std::map<std::string, PromPoint> cpu, memory, cpu_newest, memory_newest;
};
// Joins them into a report; a node missing any of the four is invalid (unknown).
LoadReport join_prometheus(const PrometheusResults& results, const std::string& source_name);

}  // namespace weft::descheduler
