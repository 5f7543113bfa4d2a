#include "scheduler/global/app/global_command.h"

#include <iostream>
#include <memory>

#include "kube/scenario.h"
#include "scheduler/global/app/global_run.h"

#include "scheduler/global/core/dispatch.h"

namespace weft::scheduler::global {
namespace {

int simulate_main(const std::string& file) {
  auto objects = kube::load_objects_file(file);
  if (!objects) {
    std::cerr << "weft-scheduler global: " << objects.message() << "\n";
    return 1;
  }
  GlobalBuilder builder;
  for (const auto& so : *objects)
    if (auto st = builder.add(so.object, so.where()); !st) {
      std::cerr << "weft-scheduler global: " << st.message() << "\n";
      return 1;
    }
  auto state = builder.build();
  if (!state) {
    std::cerr << "weft-scheduler global: " << state.message() << "\n";
    return 1;
  }
  std::cout << decisions_json(dispatch(*state)).dump(2) << "\n";
  return 0;
}

}  // namespace

void add_global_command(CLI::App& app, int& exit_code) {
  CLI::App* global = app.add_subcommand("global", "Dispatch Karmada ResourceBindings to member clusters by queue");
  global->require_subcommand(1);
  struct Args {
    std::string file, output = "json";
  };
  auto args = std::make_shared<Args>();   // the options write into it: the callback keeps it alive
  CLI::App* sim = global->add_subcommand("simulate", "Decide over one file of control-plane and member objects");
  sim->add_option("FILE", args->file, "YAML documents or a JSON List")->required();
  sim->add_option("--output", args->output, "json (the only format)")->check(CLI::IsMember({"json"}));
  sim->callback([args, &exit_code] { exit_code = simulate_main(args->file); });
  add_global_run_command(*global, exit_code);

}

}  // namespace weft::scheduler::global
