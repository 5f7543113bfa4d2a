#include "scheduler/core/plugins/registry.h"

#include <algorithm>

#include "scheduler/core/plugins/binpack/binpack.h"
#include "scheduler/core/plugins/capacity/capacity.h"
#include "scheduler/core/plugins/conformance/conformance.h"
#include "scheduler/core/plugins/drf/drf.h"
#include "scheduler/core/plugins/gang/gang.h"
#include "scheduler/core/plugins/ib-cluster/ib_cluster.h"
#include "scheduler/core/plugins/network-topology-aware/network_topology_aware.h"
#include "scheduler/core/plugins/nodeorder/nodeorder.h"
#include "scheduler/core/plugins/overcommit/overcommit.h"
#include "scheduler/core/plugins/predicates/predicates.h"
#include "scheduler/core/plugins/priority/priority.h"
#include "scheduler/core/plugins/proportion/proportion.h"
#include "scheduler/core/plugins/rail-health/rail_health.h"
#include "scheduler/core/plugins/reserved-room/reserved_room.h"
#include "scheduler/core/plugins/usage/usage.h"
#include "scheduler/core/plugins/volumes/volumes.h"

namespace weft::scheduler {

const std::vector<PluginFactory>& plugin_factories() {
  static const std::vector<PluginFactory> factories{
      {"gang", make_gang_plugin},
      {"priority", make_priority_plugin},
      {"conformance", make_conformance_plugin},
      {"drf", make_drf_plugin},
      {"proportion", make_proportion_plugin},
      {"capacity", make_capacity_plugin},
      {"predicates", make_predicates_plugin},
      {"nodeorder", make_nodeorder_plugin},
      {"binpack", make_binpack_plugin},
      {"overcommit", make_overcommit_plugin},
      {"network-topology-aware", make_network_topology_aware_plugin},
      {"usage", make_usage_plugin},
      {"rail-health", make_rail_health_plugin},
      {"ib-cluster", make_ib_cluster_plugin, /*implicit=*/true},
      {"reserved-room", make_reserved_room_plugin, /*implicit=*/true},
      {"volumes", make_volumes_plugin, /*implicit=*/true},
  };
  return factories;
}

const PluginFactory* find_plugin(const std::string& name) {
  const auto& all = plugin_factories();
  auto it = std::find_if(all.begin(), all.end(), [&](const PluginFactory& f) { return name == f.name; });
  return it == all.end() ? nullptr : &*it;
}

bool volcano_plugin_not_implemented(const std::string& name) {
  static const std::vector<std::string> refused{"cdp",          "deviceshare", "extender",     "nodegroup",
                                                "numaaware",    "pdb",         "rescheduling", "resource-strategy-fit",
                                                "resourcequota", "sla",        "task-topology", "tdm"};
  return std::find(refused.begin(), refused.end(), name) != refused.end();
}

std::string implemented_plugin_names() {
  std::string out;
  for (const auto& f : plugin_factories()) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

}  // namespace weft::scheduler
