#include "scheduler/core/preferred_node.h"

namespace weft::scheduler {

int64_t preferred_node_weight(const PodContract& contract, const std::string& node_name,
                              const kube::InternedLabels& node_labels) {
  int64_t sum = 0;
  for (const auto& t : contract.preferred_node)
    if (t.term.matches(node_name, node_labels)) sum += t.weight;
  return sum;
}

}  // namespace weft::scheduler
