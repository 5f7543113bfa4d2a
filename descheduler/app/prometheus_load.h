// Node load from Prometheus: four instant queries (cpu, memory, and each one's newest sample time)
// built from the policy's PromQL templates, joined to nodes by a label.
#pragma once

#include <chrono>
#include <string>

#include "common/result.h"
#include "descheduler/core/load.h"
#include "descheduler/core/policy.h"

namespace weft::descheduler {

// "5m" for 300 s, "90s", "1500ms": the window as a PromQL range.
std::string promql_duration(Seconds d);
// Replaces {window} and {label} in a query template.
std::string expand_query(const std::string& tmpl, const MetricsArgs& metrics);

class PrometheusLoad {
 public:
  // address: base URL ("http://prometheus:9090", a path prefix is kept).
  PrometheusLoad(std::string address, MetricsArgs metrics,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  // Never fails: a source that cannot be queried comes back with source_error set, so
  // every node is unknown and nothing is evicted.
  LoadReport fetch(TimePoint now) const;
  // One instant query: "GET URL/api/v1/query?query=..: what went wrong" on error.
  Result<std::map<std::string, PromPoint>> query(const std::string& promql, TimePoint now) const;

 private:
  std::string address_;
  MetricsArgs metrics_;
  std::chrono::milliseconds timeout_;
};

}  // namespace weft::descheduler
