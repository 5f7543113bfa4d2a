// One descheduling cycle as a pure function: classify nodes from their load, pick safe
// victims on high nodes and a target for each, and say why every other candidate stayed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/cluster.h"
#include "descheduler/core/load.h"
#include "descheduler/core/policy.h"
#include "descheduler/core/state.h"

namespace weft::descheduler {

enum class NodeClass { Low, Normal, High, Unknown };
const char* to_string(NodeClass c);

struct PlanOptions {
  TimePoint now;
  Seconds max_metric_age{300};
  Seconds cooldown{600};
};

// Who classified a node: a profile and its plugin (the runner sets them).
struct Classifier {
  std::string profile, plugin;
  std::string text() const { return profile + "/" + plugin; }   // "profile/plugin", as the plan shows it
  auto operator<=>(const Classifier&) const = default;
};

struct NodeVerdict {
  std::string name;
  std::optional<double> cpu, memory;   // ratios 0..1 as measured (also shown for stale nodes)
  NodeClass cls = NodeClass::Unknown;
  std::string why;                     // for unknown: what was missing or stale
  Classifier by;
};

struct PlannedSkip;

struct PlannedEviction {
  std::string ns, name, from, to, reason, workload;
  double cpu = 0, memory = 0;   // the usage the plan moved (millicores, milli-bytes)
  std::string sized_by;         // "usage" (a fresh per-pod reading) or "requests"
  std::string plugin;           // the plugin that asked for it
  std::string profile;          // its profile (the runner sets it)
  std::string pod() const { return ns + "/" + name; }
  // The skip that records this eviction not carried out, and why.
  PlannedSkip not_done(std::string why) const;
};

struct PlannedSkip {
  std::string ns, name, node, reason;
  std::string plugin, profile;  // whose candidate it was (the runner sets them; empty outside plugins)
  std::string pod() const { return ns + "/" + name; }
};

inline PlannedSkip PlannedEviction::not_done(std::string why) const {
  return {ns, name, from, std::move(why), plugin, profile};
}

// How long one plugin of one profile took in a cycle (upstream's strategy duration).
struct PluginRun {
  std::string profile, plugin;
  double seconds = 0;
};

// Nodes by class as each classifying plugin saw them (NodeVerdict::by).
using ClassCounts = std::map<Classifier, std::map<NodeClass, int>>;

struct Plan {
  std::vector<NodeVerdict> nodes;
  std::vector<PlannedEviction> evictions;
  std::vector<PlannedSkip> skipped;
  std::vector<std::string> notes;        // cycle-level remarks for the log
  std::vector<PluginRun> plugin_runs;    // in the order they ran
  // GangDefragment: PodGroup key -> the weft.dev/reserved-room value written before its evictions.
  std::map<std::string, std::string> reservations;
};

// Each classifier's node counts: a node two plugins classify counts once under each.
ClassCounts class_counts(const Plan& plan);

namespace framework {
class Evictor;
}

// "LowNodeUtilization" for requests-only (or metricsUtilization) args, else "LoadAware".
const char* load_plugin_name(const LoadAwareArgs& args);

// LoadAware's (and LowNodeUtilization's) balance with its profile's args over `nodes`
// (Cluster::nodes indices the profile runs on) under the profile's evictor: node verdicts, skips and notes go to `plan`,
// evictions through the evictor. Errors: a policy that cannot be applied (too many resources).
Status balance_load(const Cluster& cluster, const std::vector<int>& nodes, const LoadReport& load,
                    const LoadAwareArgs& args, const DeschedulerState& state, const PlanOptions& options,
                    framework::Evictor& evictor, Plan& plan);

// Remembers evictions that were carried out: their sources rest a window, their
// workloads cool down, and their targets carry the moved load until a window has passed
// (their averaged metrics lag behind the move). window: the policy's largest metrics window.
void record_evictions(DeschedulerState& state, const std::vector<PlannedEviction>& done, TimePoint now,
                      Seconds window);

}  // namespace weft::descheduler
