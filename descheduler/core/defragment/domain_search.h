// Within one domain: the cheapest choice of one option per node so that the gang's
// pods fit (a knapsack over slot counts, exact over the given options).
#pragma once

#include <utility>
#include <vector>

#include "descheduler/core/defragment/node_room.h"

namespace weft::descheduler::defragment {

struct DomainPlan {
  Cost cost = Cost::infinite();
  std::vector<std::pair<int, int>> picks;   // (node, option index) for every node given slots
  bool found() const { return cost.finite(); }
};

// options[node]: that node's options (empty: the gang cannot use it). need >= 1.
DomainPlan cheapest_in_domain(const std::vector<int>& nodes, const std::vector<std::vector<Option>>& options, int need);

}  // namespace weft::descheduler::defragment
