// A generated fat tree running in ibsim with OpenSM, and `weft-agent probe` run as its hosts.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/ibsim.h"
#include "tools/fat-tree/fat_tree.h"

namespace weft::testing {

struct RunningFabric {
  fattree::FatTree tree;
  std::unique_ptr<TempDir> dir;
  std::unique_ptr<IbSim> sim;
};

// Generates spec into a temp dir and starts ibsim on it (no SM yet). Fails the test on error.
std::unique_ptr<RunningFabric> start_fabric(const fattree::Spec& spec);
// Starts a master SM on the first host and waits for SUBNET UP.
void start_master(RunningFabric& f, int priority = 14);

struct ProbeRun {
  int code = -1;
  double seconds = 0;
  nlohmann::json report;   // null when stdout was not JSON
  std::string out, err;
};
ProbeRun probe_as(const RunningFabric& f, const std::string& host, const std::vector<std::string>& extra = {});

}  // namespace weft::testing
