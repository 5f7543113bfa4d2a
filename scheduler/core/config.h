// The scheduler configuration in Volcano's scheduler-conf format:
//   actions: "enqueue, allocate, reclaim, backfill"
//   tiers: [{plugins: [{name: gang}, {name: proportion, enabledAllocatable: false, arguments: {...}}, ...]}]
// Each plugin parses its own arguments (scheduler/core/plugins/<name>/). Unknown actions,
// plugins, switches and arguments are errors that name them and list what exists; a
// Volcano action or plugin weft does not implement is an error saying so.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "scheduler/core/framework/plugin_option.h"

namespace weft::scheduler {

// GangPreempt and GangReclaim are Volcano 1.15's whole-gang actions: a starving gang's
// pods are planned at once inside one candidate domain (weft's preempt and reclaim
// already plan that way), with victims taken job by job.
enum class Action { Enqueue, Allocate, Preempt, Reclaim, Backfill, GangPreempt, GangReclaim };
std::string action_name(Action a);

// Arguments of gangpreempt and gangreclaim (configurations[].arguments), Volcano's defaults.
struct GangEvictionArgs {
  int max_domains = 8;             // maxDomains: candidate domains planned per starving gang (<= 0: 8, with a warning)
  bool allow_whole_bundle = true;  // allowWholeBundle: a victim gang may be taken whole (below its minMember)
};

struct Config {
  std::vector<Action> actions;
  std::vector<PluginOption> plugins;      // in tier order
  GangEvictionArgs gang_preempt, gang_reclaim;
  // What was accepted with a warning (Volcano's own fallbacks), for the caller to log.
  std::vector<std::string> warnings;

  bool has(const std::string& plugin) const;
  bool has(Action a) const;
  const PluginOption* plugin(const std::string& name) const;   // nullptr when absent
  // Volcano's defaults plus reclaim, binpack, network-topology-aware and ib-cluster.
  static Config defaults();
};

// `name` is used in errors ("scheduler.conf: tiers[1].plugins[2] (proportion): argument 'foo' is unknown").
Result<Config> parse_config(const std::string& yaml_text, const std::string& name);

}  // namespace weft::scheduler
