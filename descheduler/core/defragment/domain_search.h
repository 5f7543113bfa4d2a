// Within one domain: the cheapest choice of one option per node so that the gang's
// pods fit (a knapsack over slot counts, exact over the given options).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "descheduler/core/defragment/node_room.h"

namespace weft::descheduler::defragment {

struct DomainPlan {
  Cost cost = Cost::infinite();
  std::vector<std::pair<int, int>> picks;   // (node, option index) for every node given slots
  bool found() const { return cost.finite(); }
};

// A node's options (empty: the gang cannot use it).
using OptionsOf = std::function<const std::vector<Option>&(int node)>;

// Keeps its tables between calls: one search runs per domain, thousands per cycle.
class DomainSearch {
 public:
  // need >= 1.
  DomainPlan cheapest(const std::vector<int>& nodes, const OptionsOf& options_of, int need);

 private:
  std::vector<int> useful_;
  std::vector<Cost> dp_, next_;
  std::vector<int> took_, from_;
};

}  // namespace weft::descheduler::defragment
