// Node load as the descheduler sees it: a cpu and memory ratio (0..1) per node with the
// time it was measured. Parsers only; fetching lives in the binary.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/duration.h"
#include "kube/time.h"

namespace weft::descheduler {

// Durations in policies and flags are Go durations (kube/duration.h); the descheduler
// computes with fractional seconds.
using Seconds = std::chrono::duration<double>;
inline Seconds to_seconds(kube::Duration d) { return Seconds(kube::to_seconds(d)); }
inline std::string format_duration(Seconds s) {
  return kube::format_duration(std::chrono::duration_cast<kube::Duration>(s));
}

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
  // Other measured resources (a policy query per resource): ratio 0..1 and its time.
  struct Reading {
    double value = 0;
    std::optional<TimePoint> at;
  };
  std::map<std::string, Reading> extended;
};

// One pod's measured usage: cores and bytes, each with the time of its newest sample
// (absent: taken to be current). Either may be missing.
struct PodUsage {
  std::optional<double> cpu_cores, memory_bytes;
  std::optional<TimePoint> cpu_at, memory_at;
};

struct LoadReport {
  std::map<std::string, LoadSample> nodes;
  // Per-node reasons a sample was rejected (bad annotation, NaN, out of range).
  // A node with a reading missing (no memory value, no memory series) is listed here too.
  std::map<std::string, std::string> invalid;
  // Set when the whole source failed (Prometheus down): every node is unknown.
  std::string source_error;
  std::string source_name;   // "prometheus http://...", "file x.json", "annotations"
  // Per-pod usage by "namespace/name" (load files' "pods", Prometheus' per-pod series).
  std::unordered_map<std::string, PodUsage> pods;
  std::string pods_error;    // the per-pod queries failed: victims are sized by requests
};

// {"nodes":[{"name","cpu","memory","at"}], "pods":[{"namespace","name","cpu","memory","at"}]}.
// Nodes: ratios 0..1; "cpu_at"/"memory_at" override "at" for one reading; "extended":
// {"nvidia.com/gpu": ratio} for resources the policy measures. An entry without cpu or
// memory (absent or null) leaves its node unknown (report.invalid). Pods: cores and
// bytes, either may be absent. Malformed values are errors naming the file and the entry.
// Pod entries are read one at a time, so 100,000 of them never exist as one JSON tree.
Result<LoadReport> parse_load_file(std::string_view text, const std::string& file);

// A Prometheus /api/v1/query response with resultType vector: key -> (value, time), the
// key being the values of `labels` joined by '/' ("node-1", "team-a/pod-7"). Series
// without every label are left out. Series are decoded one at a time.
struct PromPoint {
  double value = 0;
  TimePoint at;
};
using PromVector = std::unordered_map<std::string, PromPoint>;
Result<PromVector> parse_prometheus_vector(const std::string& body, const std::vector<std::string>& labels);

// The node queries' results, per measured resource: the averaged reading and the time
// of its newest sample (as the value).
struct ResourceResults {
  PromVector value, newest;
};
// Joins them into a report; a node missing cpu or memory (either query) is invalid
// (unknown); a missing extended reading leaves it out of the sample (the planner decides).
LoadReport join_prometheus(const std::map<std::string, ResourceResults>& results, const std::string& source_name);

// The per-pod queries' results (key "namespace/pod"): cores, bytes, and each one's newest
// sample time. A reading without its time is left out (requests size that pod).
void join_pod_usage(const PromVector& cpu, const PromVector& memory, const PromVector& cpu_newest,
                    const PromVector& memory_newest, LoadReport& report);

}  // namespace weft::descheduler
