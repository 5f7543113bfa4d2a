// Runs a scenario file from tests/scheduler/scenarios through the simulator in-process
// and offers lookups on the report.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/core/simulation.h"

namespace weft::scheduler::testing {

struct ScenarioRun {
  SimulationResult result;
  const nlohmann::json& report() const { return result.report; }
  std::string node_of(const std::string& pod) const;          // "" when pending
  nlohmann::json podgroup(const std::string& name) const;     // {} when absent
  nlohmann::json queue(const std::string& name) const;
  int bound_in(const std::string& group_prefix) const;        // pods "default/<prefix>-*" bound
  std::string reason_of(const std::string& pod) const;
};

// Pods bound per group after each cycle of a simulate report (the cycle's bindings and
// evictions applied), starting from `initial`: element c is the state after cycle c.
std::vector<std::map<std::string, int>> bound_after_each_cycle(
    const nlohmann::json& report, const std::function<std::string(const std::string& pod)>& group_of,
    std::map<std::string, int> initial = {});

// Builds a scenario in code: nodes, queues, PodGroups and pods (bound when given a node),
// each with its arrival cycle; run() simulates it with the given config.
class ScenarioBuilder {
 public:
  void node(const std::string& name, int cpu, nlohmann::json labels = nlohmann::json::object(),
            nlohmann::json spec = nlohmann::json::object());
  void queue(const std::string& name, int arrival, nlohmann::json spec = {{"weight", 1}});
  // extra: merged into spec (networkTopology, priorityClassName); ib: weft.dev/ib-cluster: same.
  void group(const std::string& name, const std::string& queue, int min, int arrival, bool ib = false,
             nlohmann::json extra = nlohmann::json::object());
  void pod(const std::string& name, const std::string& group, int cpu, int arrival, const std::string& node = "",
           int priority = 0, const std::string& ns = "default");
  // `count` pods of `group` named <group>-<node>-<i>, bound on `node`.
  void bound(const std::string& group, const std::string& node, int count, int cpu, int priority = 0);
  void add(nlohmann::json object);
  ScenarioRun run(const Config& config = Config::defaults()) const;
  ScenarioRun run_at(const Config& config, TimePoint now) const;   // a fixed clock (load reports)

 private:
  std::vector<kube::SourcedObject> objects_;
};

// NAME.yaml, with NAME.conf as the config when it exists (defaults otherwise).
ScenarioRun run_scenario(const std::string& name, const std::string& now = "");

}  // namespace weft::scheduler::testing
