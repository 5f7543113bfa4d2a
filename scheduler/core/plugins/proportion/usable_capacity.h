// The capacity queue shares are cut from: ready, schedulable nodes without hard taints
// (unless tolerated) that match a node selector (weft's arguments `tolerations` and
// `nodeSelector` of proportion and capacity). "pods" is left out.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/selector.h"
#include "kube/taints.h"
#include "scheduler/core/framework/quantities.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

struct CapacityFilter {
  std::vector<kube::Toleration> tolerations;
  kube::Labels node_selector;
};

Result<CapacityFilter> parse_capacity_filter(const nlohmann::json& arguments);
Quantities usable_capacity(const Snapshot& snapshot, const CapacityFilter& filter);

}  // namespace weft::scheduler
