// Subcommands of weft-scheduler. Each registers itself on the CLI11 app and sets the
// exit code through `exit_code` when it runs. `run` (against the API) lives in run_*.cc.
#pragma once

#include <CLI/CLI.hpp>

namespace weft::scheduler::app {

void add_simulate_command(CLI::App& app, int& exit_code);
void add_topology_command(CLI::App& app, int& exit_code);

}  // namespace weft::scheduler::app
