// weft-agent: `probe` (one-shot report) and `run` (the DaemonSet daemon).
//
// `run` lives in weft-agent-daemon beside this binary and is exec'd with the same
// arguments (same PID, same signals): the daemon links TLS, HTTP, YAML and Prometheus
// libraries that a one-shot probe never uses, and loading them was most of the
// probe's start-up time.
#include <cstring>
#include <iostream>

#include <CLI/CLI.hpp>

#include "node-agent/daemon_exec.h"
#ifdef WEFT_HAVE_PROBE
#include "node-agent/probe_command.h"
#endif

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "run") == 0) return weft::agent::exec_daemon(argc, argv);

  CLI::App app{"weft node agent: IB fabric position and node load"};
  app.require_subcommand(1);
  app.set_version_flag("--version", WEFT_VERSION);
#ifdef WEFT_HAVE_PROBE
  weft::agent::ProbeOptions probe_options;
  auto* probe = weft::agent::add_probe_command(app, probe_options);
#endif
  app.add_subcommand("run", "Run the node daemon: probe loop, /metrics, Node labels and annotations "
                            "(weft-agent run --help lists its flags)");
  CLI11_PARSE(app, argc, argv);
#ifdef WEFT_HAVE_PROBE
  if (probe->parsed()) return weft::agent::run_probe(probe_options);
#endif
  std::cerr << "weft-agent: this build has no such subcommand\n";
  return 2;
}
