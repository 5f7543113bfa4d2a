// NodePorts (kube-scheduler's filter, run by Volcano's predicates): a pod's hostPorts must
// be free on the node — against bound pods and pods placed earlier in this cycle, members
// of the same gang included. Same port and protocol conflict when either hostIP is 0.0.0.0
// or both are equal.
#pragma once

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

inline constexpr const char* kNodePortsReason = "node(s) didn't have free ports for the requested pod ports";

// Registers the filter when some pod of the snapshot asks for a host port.
void add_node_ports_filter(Session& ssn, const PluginOption& option);

}  // namespace weft::scheduler
