// `weft-scheduler global`: multi-cluster dispatch of Karmada ResourceBindings, offline
// (`simulate FILE`) or against a control plane and its members (`run`).
#pragma once

#include <CLI/CLI.hpp>

namespace weft::scheduler::global {

void add_global_command(CLI::App& app, int& exit_code);

}  // namespace weft::scheduler::global
