// The naive baseline for GangDefragment: for each gang, try every allowed domain by
// evicting greedily (lowest priority first, node by node, the emptiest nodes first) until
// the gang fits, and keep the domain that needed the fewest evictions.
#pragma once

#include <string>
#include <vector>

#include "descheduler/core/defragment/world.h"

namespace weft::bench {

struct NaiveChoice {
  std::string gang, domain;
  int evictions = -1;   // -1: no domain could be freed
};

std::vector<NaiveChoice> naive_defragment(const descheduler::defragment::World& world);

}  // namespace weft::bench
