// Where a pod may go so the scheduler could put it back inside its fabric domain:
// the same weft.dev/ib-fabric for `weft.dev/ib-cluster: same` groups and for RDMA pods on
// IB nodes; the same tier domain (1 leaf, 2 spine, 3 fabric) for hard networkTopology groups.
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
  bool unconstrained() const { return required.empty(); }
  bool allows(const NodeInfo& target) const;
};

DomainRule domain_rule(const PodInfo& pod, const NodeInfo& source, const Cluster& cluster);

}  // namespace weft::descheduler
