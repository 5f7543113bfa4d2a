// simulate and topology: read a scenario file (and a config), print the result.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "kube/scenario.h"
#include "kube/time.h"
#include "scheduler/app/commands.h"
#include "scheduler/core/simulation.h"
#include "scheduler/core/topology.h"

namespace weft::scheduler::app {
namespace {

Result<Config> load_config(const std::string& path) {
  if (path.empty()) return Config::defaults();
  std::ifstream in(path);
  if (!in) return make_error(path + ": cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), path);
}

int fail(const std::string& message) {
  std::cerr << "weft-scheduler: " << message << "\n";
  return 1;
}

struct SimulateArgs {
  std::string scenario, config, output = "json", now;
  int max_cycles = 200;
};

int simulate_main(const SimulateArgs& a) {
  auto config = load_config(a.config);
  if (!config) return fail(config.message());
  for (const auto& w : config->warnings) std::cerr << "weft-scheduler: warning: " << w << "\n";
  auto objects = kube::load_objects_file(a.scenario);
  if (!objects) return fail(objects.message());
  SimulationOptions opts{.max_cycles = a.max_cycles};
  if (!a.now.empty()) {
    auto t = kube::parse_rfc3339(a.now);
    if (!t) return fail("--now: " + t.message());
    opts.now = *t;
  }
  auto result = simulate(*objects, *config, opts);
  if (!result) return fail(result.message());
  if (a.output == "table") std::cout << simulation_table(*result);
  else std::cout << result->report.dump(2) << "\n";
  return 0;
}

struct TopologyArgs {
  std::string scenario, output = "hypernodes";
};

int topology_main(const TopologyArgs& a) {
  auto objects = kube::load_objects_file(a.scenario);
  if (!objects) return fail(objects.message());
  SnapshotBuilder builder;
  for (const auto& so : *objects) {
    std::string kind = so.object.value("kind", "");
    if (kind != "Node" && kind != "HyperNode") {
      if (!known_kind(kind)) return fail(so.where() + ": kind: '" + kind + "' is unknown");
      continue;
    }
    if (auto st = builder.add(so.object, so.where()); !st) return fail(st.message());
  }
  Snapshot snap = builder.build();
  Topology topo = build_topology(snap);
  if (a.output == "dot") std::cout << topology_dot(topo, snap);
  else if (a.output == "json") std::cout << topology_json(topo, snap).dump(2) << "\n";
  else {
    // Multi-document YAML is what kubectl apply takes; JSON is valid YAML, one object per document.
    // Held in a local: a range-for over a member of a temporary would dangle.
    const nlohmann::json list = hypernode_objects(topo);
    for (const auto& item : list["items"]) std::cout << "---\n" << item.dump(2) << "\n";
  }
  return 0;
}

}  // namespace

void add_simulate_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SimulateArgs>();
  CLI::App* cmd = app.add_subcommand("simulate", "Run scheduling cycles over a scenario file and print the result");
  cmd->add_option("SCENARIO", args->scenario, "multi-document YAML or JSON List of Kubernetes objects")->required();
  cmd->add_option("--config", args->config, "Volcano scheduler configuration (actions, tiers)");
  cmd->add_option("--output", args->output, "json or table")->check(CLI::IsMember({"json", "table"}));
  cmd->add_option("--now", args->now, "the time load annotations are aged against (RFC 3339; default: now)");
  cmd->add_option("--max-cycles", args->max_cycles, "stop after this many cycles")->check(CLI::PositiveNumber);
  cmd->callback([args, &exit_code] { exit_code = simulate_main(*args); });
}

void add_topology_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TopologyArgs>();
  CLI::App* cmd = app.add_subcommand("topology", "Print the IB clusters and tiers of a scenario's nodes");
  cmd->add_option("SCENARIO", args->scenario, "scenario file with Nodes (and HyperNodes)")->required();
  cmd->add_option("--output", args->output, "hypernodes, dot or json")
      ->check(CLI::IsMember({"hypernodes", "dot", "json"}));
  cmd->callback([args, &exit_code] { exit_code = topology_main(*args); });
}

}  // namespace weft::scheduler::app
