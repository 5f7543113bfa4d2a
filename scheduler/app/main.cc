// weft-scheduler: gang scheduling inside one IB cluster and the lowest network tier.
// Subcommands register themselves (commands.h); `run` is added beside them.
#include <CLI/CLI.hpp>

#include "scheduler/app/commands.h"
#include "scheduler/app/run_command.h"
#include "scheduler/global/app/global_command.h"

int main(int argc, char** argv) {
  CLI::App app{"weft-scheduler: gang scheduler for InfiniBand clusters (Volcano job model)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", WEFT_VERSION);
  int exit_code = 0;
  weft::scheduler::app::add_simulate_command(app, exit_code);
  weft::scheduler::app::add_topology_command(app, exit_code);
  weft::scheduler::app::add_run_command(app, exit_code);
  weft::scheduler::global::add_global_command(app, exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
