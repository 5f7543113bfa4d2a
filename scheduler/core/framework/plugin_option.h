// One plugin entry of volcano-scheduler.conf: its name, tier, the `enable…` switches as
// written (absent = on) and its raw arguments (the plugin parses them).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace weft::scheduler {

// Volcano's PluginOption switches. A switch set to false keeps the plugin from
// registering that kind of callback; absent means on.
enum class Switch {
  JobOrder, Hierarchy, JobReady, JobPipelined, TaskOrder, Preemptable, Reclaimable, Preemptive,
  QueueOrder, ClusterOrder, Predicate, BestNode, NodeOrder, TargetJob, ReservedNodes, JobEnqueued,
  Victim, JobStarving, Overused, Allocatable, HyperNodeOrder, SubJobReady, SubJobPipelined, SubJobOrder,
  HyperNodeGradient,
};

// The YAML key of each switch, exactly as Volcano spells it ("enableJobOrder", "enabledOverused", ...).
const std::vector<std::pair<Switch, const char*>>& switch_keys();

struct PluginOption {
  PluginOption() = default;
  // So that a configuration built in code reads `plugins = {"gang", "predicates"}` (tier 0, no switches).
  PluginOption(const char* plugin_name) : name(plugin_name) {}          // NOLINT(google-explicit-constructor)
  PluginOption(std::string plugin_name, int plugin_tier = 0) : name(std::move(plugin_name)), tier(plugin_tier) {}   // NOLINT

  std::string name;
  int tier = 0;
  std::map<Switch, bool> switches;                       // only the ones written
  nlohmann::json arguments = nlohmann::json::object();
  std::string where;                                     // "conf: tiers[1].plugins[2] (proportion)"

  bool enabled(Switch s) const;
  // Hierarchy is the one switch Volcano defaults to off.
  bool hierarchy() const;
};

}  // namespace weft::scheduler
