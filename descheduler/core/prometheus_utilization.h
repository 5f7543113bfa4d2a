// LowNodeUtilization's metricsUtilization {source: Prometheus, prometheus: {query}}, as
// upstream: the query gives one 0..1 value per node, labelled `instance` with the node's
// name, read as the single resource MetricResource (capacity 100, whole percents, as
// upstream truncates). weft also needs each node's newest sample time (it never acts on
// stale metrics): for a plain series selector (a recording rule such as
// instance:node_cpu:rate:sum) it asks max by (instance) (timestamp(<query>)); any other
// query must come with weft's prometheus.freshnessQuery, which gives it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/core/plugins/common/args.h"
#include "descheduler/core/policy.h"

namespace weft::descheduler {

inline constexpr const char* kMetricResource = "MetricResource";
inline constexpr const char* kInstanceLabel = "instance";

// A metric name with optional label matchers and nothing else: `name`, `name{a="b"}`, `{a="b"}`.
bool is_series_selector(const std::string& promql);

// Reads metricsUtilization.prometheus (at `path`) into `la`, whose thresholds are read:
// upstream's rules (a query; thresholds and targetThresholds of MetricResource alone) and
// the freshness query. Errors name the field.
Status parse_prometheus_utilization(const args::Ctx& c, const nlohmann::json& prom, const std::string& path,
                                    LoadAwareArgs& la);

}  // namespace weft::descheduler
