// Where a pod may go so the scheduler could put it back inside its fabric domain:
// the same weft.dev/ib-fabric for `weft.dev/ib-cluster: same` groups and for RDMA pods on
// IB nodes; for hard networkTopology groups the scheduler's own domain (its HyperNodes,
// else the domains it derives from the agents' labels) of the highest allowed tier that
// holds the source (scheduler/core/query/domain.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "descheduler/core/cluster.h"

namespace weft::descheduler {

struct DomainRule {
  // Every (label, value) must match on the target. A value of "" means the source node
  // lacks the label, so no target can be proven to be in the domain.
  std::vector<std::pair<std::string, std::string>> required;
  // A hard-topology gang: the target must be one of these (Cluster::topology node
  // indices, ascending); confined with no nodes: no target can be proven.
  bool confined = false;
  const std::vector<int>* nodes = nullptr;
  bool allows(int target, const Cluster& cluster) const;
};

DomainRule domain_rule(const PodInfo& pod, const Cluster& cluster);

}  // namespace weft::descheduler
