// The scheduler configuration in Volcano's scheduler-conf format:
//   actions: "enqueue, allocate, reclaim, backfill"
//   tiers: [{plugins: [{name: gang}, {name: proportion, arguments: {...}}, ...]}]
// Unknown actions, plugins, plugin options and arguments are errors that name them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kube/selector.h"
#include "kube/taints.h"

namespace weft::scheduler {

enum class Action { Enqueue, Allocate, Preempt, Reclaim, Backfill };
std::string action_name(Action a);

struct BinpackArgs {
  double weight = 1;                          // binpack.weight
  std::map<std::string, double> resources{{"cpu", 1}, {"memory", 1}};  // binpack.cpu/.memory/.resources.*
};

struct NodeOrderArgs {
  double least_requested = 1;   // leastrequested.weight
  double most_requested = 0;    // mostrequested.weight
  double balanced_resource = 1; // balancedresource.weight
  double taint_toleration = 1;  // tainttoleration.weight (PreferNoSchedule taints)
};

// What capacity work can use, for proportion's total (weft extension arguments).
struct ProportionArgs {
  std::vector<kube::Toleration> tolerations;  // arguments.tolerations
  kube::Labels node_selector;                 // arguments.nodeSelector
};

// Load-aware scoring from the agents' weft.dev/load annotation (Volcano's `usage` plugin).
struct UsageArgs {
  double weight = 1;          // usage.weight
  double cpu_weight = 1;      // cpu.weight
  double memory_weight = 1;   // memory.weight
  std::optional<double> cpu_threshold;      // thresholds.cpu (percent): nodes above are filtered
  std::optional<double> memory_threshold;   // thresholds.mem
  // Oldest annotation still believed, in seconds; 0 = twice the annotation's own window_s.
  double max_age_s = 0;       // usage.maxAge ("90s", "2m" or seconds)
};

struct Config {
  std::vector<Action> actions;
  // Enabled plugins by Volcano name: gang, priority, conformance, drf, proportion,
  // predicates, nodeorder, binpack, network-topology-aware, usage, overcommit.
  std::vector<std::string> plugins;
  BinpackArgs binpack;
  NodeOrderArgs nodeorder;
  ProportionArgs proportion;
  UsageArgs usage;
  double overcommit_factor = 1.2;   // overcommit: overcommit-factor
  double topology_weight = 1;       // network-topology-aware: weight

  bool has(const std::string& plugin) const;
  bool has(Action a) const;
  // Volcano's defaults plus reclaim, binpack and network-topology-aware.
  static Config defaults();
};

// `name` is used in errors ("scheduler.conf: tiers[1].plugins[2] (proportion): argument 'foo' is unknown").
Result<Config> parse_config(const std::string& yaml_text, const std::string& name);

}  // namespace weft::scheduler
