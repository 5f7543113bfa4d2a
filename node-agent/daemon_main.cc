// weft-agent-daemon: `weft-agent run`, exec'd by weft-agent with the same arguments.
#include <CLI/CLI.hpp>

#include "node-agent/run_command.h"

int main(int argc, char** argv) {
  CLI::App app{"weft node agent daemon (started as `weft-agent run`)"};
  app.name("weft-agent");
  app.require_subcommand(1);
  app.set_version_flag("--version", WEFT_VERSION);
  weft::agent::RunOptions options;
  auto* run = weft::agent::add_run_command(app, options);
  CLI11_PARSE(app, argc, argv);
  return run->parsed() ? weft::agent::run_daemon(options) : 2;
}
