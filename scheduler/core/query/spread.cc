#include "scheduler/core/query/spread.h"

namespace weft::scheduler::query {

SpreadSelection::SpreadSelection(const SpreadConstraint& c, const PodInfo& owner)
    : selection_(scheduler::spread_selection(c, owner)) {}

bool SpreadSelection::counts(const Snapshot& snap, const PodInfo& pod) const {
  return !pod.terminating && selection_.matches(snap, pod);
}

bool spread_counts_node(const SpreadConstraint& c, const PodInfo& owner, const NodeInfo& node) {
  return scheduler::spread_counts_node(c, owner, node);
}

std::string spread_identity(const PodInfo& owner, size_t index) {
  const SpreadConstraint& c = owner.contract().spread[index];
  return term_identity(owner, "spread." + std::to_string(index), c.match_label_keys, {});
}

}  // namespace weft::scheduler::query
