// weft-agent: `probe` (one-shot report) and `run` (the DaemonSet daemon).
#include <iostream>

#include <CLI/CLI.hpp>

#ifdef WEFT_HAVE_PROBE
#include "node-agent/probe_command.h"
#endif
#ifdef WEFT_HAVE_RUN
#include "node-agent/run_command.h"
#endif

int main(int argc, char** argv) {
  CLI::App app{"weft node agent: IB fabric position and node load"};
  app.require_subcommand(1);
#ifdef WEFT_HAVE_PROBE
  weft::agent::ProbeOptions probe_options;
  auto* probe = weft::agent::add_probe_command(app, probe_options);
#endif
#ifdef WEFT_HAVE_RUN
  weft::agent::RunOptions run_options;
  auto* run = weft::agent::add_run_command(app, run_options);
#endif
  CLI11_PARSE(app, argc, argv);
#ifdef WEFT_HAVE_PROBE
  if (probe->parsed()) return weft::agent::run_probe(probe_options);
#endif
#ifdef WEFT_HAVE_RUN
  if (run->parsed()) return weft::agent::run_daemon(run_options);
#endif
  std::cerr << "weft-agent: this build has no such subcommand\n";
  return 2;
}
