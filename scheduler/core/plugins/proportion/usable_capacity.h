// The capacity queue shares are cut from: ready, schedulable nodes without hard taints
// (unless tolerated) that match a node selector (weft's arguments `tolerations` and
// `nodeSelector` of proportion and capacity). "pods" is left out.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/selector.h"
#include "kube/taints.h"
#include "scheduler/core/framework/quantities.h"
#include "scheduler/core/framework/session.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

struct CapacityFilter {
  std::vector<kube::Toleration> tolerations;
  kube::Labels node_selector;
};

Result<CapacityFilter> parse_capacity_filter(const nlohmann::json& arguments);
Quantities usable_capacity(const Snapshot& snapshot, const CapacityFilter& filter);

// The factory of a share plugin (proportion, capacity): P(option, filter).
template <class P>
Result<std::unique_ptr<Plugin>> make_with_capacity_filter(const PluginOption& option) {
  auto filter = parse_capacity_filter(option.arguments);
  if (!filter) return filter.error();
  return std::unique_ptr<Plugin>(std::make_unique<P>(option, std::move(*filter)));
}

}  // namespace weft::scheduler
