// Node and pod load from Prometheus: per measured resource a reading query and a newest-
// sample query (the policy's PromQL templates), joined to nodes by a label; then the
// per-pod usage queries, joined by namespace and pod. Bearer token, basic auth and a CA
// file for Prometheus services that require them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/load.h"
#include "descheduler/core/policy.h"

namespace weft::descheduler {

// "5m" for 300 s, "90s", "1500ms": the window as a PromQL range.
std::string promql_duration(Seconds d);
// Replaces {window} and {label} in a query template.
std::string expand_query(const std::string& tmpl, Seconds window, const std::string& label);

class PrometheusLoad {
 public:
  // address: base URL ("http://prometheus:9090", a path prefix is kept).
  PrometheusLoad(std::string address, MetricsArgs metrics,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  // Never fails: a source whose node queries fail comes back with source_error set, so
  // every node is unknown and nothing is evicted. Failed per-pod queries only set
  // pods_error (victims are then sized by their requests).
  LoadReport fetch(TimePoint now) const;
  // One instant query, series keyed by the values of `labels`:
  // "GET URL/api/v1/query?query=..: what went wrong" on error.
  Result<PromVector> query(const std::string& promql, const std::vector<std::string>& labels, TimePoint now) const;

 private:
  std::string address_;
  MetricsArgs metrics_;
  std::chrono::milliseconds timeout_;
};

}  // namespace weft::descheduler
