#include "scheduler/core/framework/plugin_option.h"

namespace weft::scheduler {

const std::vector<std::pair<Switch, const char*>>& switch_keys() {
  static const std::vector<std::pair<Switch, const char*>> keys{
      {Switch::JobOrder, "enableJobOrder"},
      {Switch::Hierarchy, "enableHierarchy"},
      {Switch::JobReady, "enableJobReady"},
      {Switch::JobPipelined, "enableJobPipelined"},
      {Switch::TaskOrder, "enableTaskOrder"},
      {Switch::Preemptable, "enablePreemptable"},
      {Switch::Reclaimable, "enableReclaimable"},
      {Switch::Preemptive, "enablePreemptive"},
      {Switch::QueueOrder, "enableQueueOrder"},
      {Switch::ClusterOrder, "enabledClusterOrder"},
      {Switch::Predicate, "enablePredicate"},
      {Switch::BestNode, "enableBestNode"},
      {Switch::NodeOrder, "enableNodeOrder"},
      {Switch::TargetJob, "enableTargetJob"},
      {Switch::ReservedNodes, "enableReservedNodes"},
      {Switch::JobEnqueued, "enableJobEnqueued"},
      {Switch::Victim, "enabledVictim"},
      {Switch::JobStarving, "enableJobStarving"},
      {Switch::Overused, "enabledOverused"},
      {Switch::Allocatable, "enabledAllocatable"},
      {Switch::HyperNodeOrder, "enabledHyperNodeOrder"},
      {Switch::SubJobReady, "enabledSubJobReady"},
      {Switch::SubJobPipelined, "enabledSubJobPipelined"},
      {Switch::SubJobOrder, "enabledSubJobOrder"},
      {Switch::HyperNodeGradient, "enabledHyperNodeGradient"},
  };
  return keys;
}

bool PluginOption::enabled(Switch s) const {
  auto it = switches.find(s);
  return it == switches.end() || it->second;
}

bool PluginOption::hierarchy() const {
  auto it = switches.find(Switch::Hierarchy);
  return it != switches.end() && it->second;
}

}  // namespace weft::scheduler
