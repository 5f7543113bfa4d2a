// Runs a scenario file from tests/scheduler/scenarios through the simulator in-process
// and offers lookups on the report.
#pragma once

#include <string>

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

// NAME.yaml, with NAME.conf as the config when it exists (defaults otherwise).
ScenarioRun run_scenario(const std::string& name, const std::string& now = "");

}  // namespace weft::scheduler::testing
