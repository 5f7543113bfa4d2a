#include "tests/scheduler/scenario_runner.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "scheduler/core/time_format.h"

namespace weft::scheduler::testing {

std::string ScenarioRun::node_of(const std::string& pod) const {
  for (const auto& p : report()["pods"])
    if (p["pod"] == pod) return p["node"].is_null() ? "" : p["node"].get<std::string>();
  ADD_FAILURE() << "no pod " << pod << " in the report";
  return "";
}

nlohmann::json ScenarioRun::podgroup(const std::string& name) const {
  for (const auto& g : report()["podgroups"])
    if (g["name"] == name) return g;
  return nlohmann::json::object();
}

nlohmann::json ScenarioRun::queue(const std::string& name) const {
  for (const auto& q : report()["queues"])
    if (q["name"] == name) return q;
  return nlohmann::json::object();
}

int ScenarioRun::bound_in(const std::string& prefix) const {
  int n = 0;
  for (const auto& p : report()["pods"])
    if (p["pod"].get<std::string>().rfind("default/" + prefix + "-", 0) == 0 && !p["node"].is_null()) ++n;
  return n;
}

std::string ScenarioRun::reason_of(const std::string& pod) const {
  auto it = result.pending_reasons.find(pod);
  return it == result.pending_reasons.end() ? "" : it->second;
}

ScenarioRun run_scenario(const std::string& name, const std::string& now) {
  std::string dir = std::string(WEFT_SOURCE_DIR) + "/tests/scheduler/scenarios/";
  auto objects = kube::load_objects_file(dir + name + ".yaml");
  if (!objects) throw std::runtime_error(objects.message());
  Config config = Config::defaults();
  std::ifstream conf(dir + name + ".conf");
  if (conf) {
    std::stringstream ss;
    ss << conf.rdbuf();
    auto c = parse_config(ss.str(), name + ".conf");
    if (!c) throw std::runtime_error(c.message());
    config = *c;
  }
  SimulationOptions opts;
  if (!now.empty()) opts.now = *parse_rfc3339(now);
  auto r = simulate(*objects, config, opts);
  if (!r) throw std::runtime_error(r.message());
  return ScenarioRun{std::move(*r)};
}

}  // namespace weft::scheduler::testing
