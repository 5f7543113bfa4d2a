// One-shot load measurement for `weft-agent probe`: the probe JSON's "load" object (docs/contracts.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "collectors/load/select.h"
#include "collectors/load/window.h"

namespace weft::load {

struct LoadProbeOptions {
  std::string backend = "auto";  // --load-backend
  double sample_seconds = 1.0;   // --sample-seconds
  std::string cgroup;            // --cgroup PATH, "" for none
};

// {"source","source_reason","window_s","cpu","cpus":[..],"memory","runq_latency_p50_s",
//  "runq_latency_p99_s","reclaim_stall_s","cpu_pressure_some","cpu_sample_hz","runq_observed_share",
//  "cgroup":{"path","busy_ratio"}}
// Unknown values (e.g. run-queue quantiles from procfs) are null; cpu_sample_hz is null
// when busy ratios are exact, runq_observed_share < 1 when the waits are a sample.
nlohmann::json window_json(const LoadWindow& w, const std::string& source, const std::string& reason,
                           const std::string& cgroup);

// Picks the backend, samples over sample_seconds, returns the JSON above.
Result<nlohmann::json> probe_load(const LoadProbeOptions& options, const SourceFactories& factories);
Result<nlohmann::json> probe_load(const LoadProbeOptions& options);

}  // namespace weft::load
