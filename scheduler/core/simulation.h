// Offline simulation of scheduling cycles over a scenario (what `weft-scheduler simulate`
// prints). Objects appear at their `weft.dev/arrival-cycle`; bindings and evictions are
// applied between cycles (an evicted pod is pending again, as its controller recreates
// it); cycles run until one changes nothing after the last arrival. No I/O.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/keys.h"
#include "common/result.h"
#include "kube/scenario.h"
#include "scheduler/core/config.h"
#include "scheduler/core/session.h"

namespace weft::scheduler {

struct SimulationOptions {
  int max_cycles = 200;
  TimePoint now = Clock::now();
};

struct SimulationResult {
  nlohmann::json report;   // the simulate JSON of docs/contracts.md
  std::map<std::string, std::string> pending_reasons;   // pod -> why, after the last cycle
};

// Errors name file, document, object and field (bad quantity, unknown kind, a PodGroup
// naming a Queue that never appears, a bad arrival cycle).
Result<SimulationResult> simulate(const std::vector<kube::SourcedObject>& objects, const Config& config,
                                  const SimulationOptions& options = {});

// A human-readable table of a simulate report.
std::string simulation_table(const SimulationResult& result);

}  // namespace weft::scheduler
