// `weft-scheduler global run --kubeconfig CONTROL_PLANE --member NAME=KUBECONFIG ...`:
// watches the control plane and the members, dispatches suspended ResourceBindings
// every --period.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace weft::scheduler::global {

struct GlobalRunOptions {
  std::string kubeconfig;
  std::vector<std::string> members;   // NAME=KUBECONFIG
  int cycles = 0;                     // 0 = until SIGTERM/SIGINT
  double period_s = 2;
  std::string log_level = "info";
};

// 2 for bad flags or kubeconfigs, 1 when an API cannot be reached.
int run_global(const GlobalRunOptions& options);

void add_global_run_command(CLI::App& global, int& exit_code);

}  // namespace weft::scheduler::global
