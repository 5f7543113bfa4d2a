#include "collectors/load/probe.h"

#include <cmath>
#include <thread>

#include "collectors/load/text_files.h"

namespace weft::load {

namespace {

double round4(double v) { return std::round(v * 10000.0) / 10000.0; }

nlohmann::json optional_number(const std::optional<double>& v, int digits) {
  if (!v) return nullptr;
  double scale = std::pow(10.0, digits);
  return std::round(*v * scale) / scale;
}

}  // namespace

nlohmann::json window_json(const LoadWindow& w, const std::string& source, const std::string& reason,
                           const std::string& cgroup) {
  nlohmann::json j;
  j["source"] = source;
  j["source_reason"] = reason;
  j["window_s"] = round4(w.window_s);
  j["cpu"] = round4(w.cpu);
  j["cpus"] = nlohmann::json::array();
  for (double c : w.cpus) j["cpus"].push_back(round4(c));
  j["memory"] = round4(w.memory);
  j["runq_latency_p50_s"] = optional_number(w.runq_p50_s, 9);
  j["runq_latency_p99_s"] = optional_number(w.runq_p99_s, 9);
  j["reclaim_stall_s"] = optional_number(w.reclaim_stall_s, 6);
  j["cpu_pressure_some"] = optional_number(w.cpu_pressure_some, 4);
  j["cpu_sample_hz"] = optional_number(w.cpu_sample_hz, 0);
  j["runq_observed_share"] = optional_number(w.runq_observed_share, 4);
  if (!cgroup.empty()) {
    auto it = w.cgroups.find(cgroup);
    j["cgroup"] = {{"path", cgroup},
                   {"busy_ratio", it == w.cgroups.end() ? nlohmann::json(nullptr) : nlohmann::json(round4(it->second))}};
  }
  return j;
}

Result<nlohmann::json> probe_load(const LoadProbeOptions& options, const SourceFactories& factories) {
  if (!(options.sample_seconds > 0) || options.sample_seconds > 3600) {
    return make_error("--sample-seconds: must be in (0, 3600], got " + std::to_string(options.sample_seconds));
  }
  auto backend = parse_backend(options.backend);
  if (!backend) return backend.error();
  auto selected = select_source(*backend, factories);
  if (!selected) return selected.error();
  LoadSource& source = *selected->source;
  if (!options.cgroup.empty()) {
    if (auto st = source.watch_cgroup(options.cgroup); !st) return st.error();
  }
  auto before = source.read();
  if (!before) return before.error();
  std::this_thread::sleep_for(std::chrono::duration<double>(options.sample_seconds));
  auto after = source.read();
  if (!after) return after.error();
  auto w = compute_window(*before, *after);
  if (!w) return w.error();
  return window_json(*w, source.name(), selected->reason, options.cgroup);
}

Result<nlohmann::json> probe_load(const LoadProbeOptions& options) {
  return probe_load(options, host_factories());
}

}  // namespace weft::load
