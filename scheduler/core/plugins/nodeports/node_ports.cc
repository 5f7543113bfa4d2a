#include "scheduler/core/plugins/nodeports/node_ports.h"

#include <algorithm>

namespace weft::scheduler {

void add_node_ports_filter(Session& ssn, const PluginOption& option) {
  const auto& pods = ssn.snap.pods;
  if (std::none_of(pods.begin(), pods.end(), [](const PodInfo& p) { return !p.contract().host_ports.empty(); }))
    return;
  ssn.add_dynamic_predicate(option, [&ssn](int pod, int node) -> std::string {
    const auto& want = ssn.snap.pods[pod].contract().host_ports;
    if (want.empty() || !ssn.cluster.placed().port_conflict(node, want)) return "";
    return kNodePortsReason;
  });
}

}  // namespace weft::scheduler
