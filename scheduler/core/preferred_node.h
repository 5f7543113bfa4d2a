// Preferred node affinity on one node: the summed weights of the pod's preferred terms the
// node matches — the scheduler's NodeAffinity score before normalizing, and the descheduler's
// RemovePodsViolatingNodeAffinity (preferred) comparison.
#pragma once

#include <cstdint>
#include <string>

#include "kube/selector.h"
#include "scheduler/core/pod_contract.h"

namespace weft::scheduler {

int64_t preferred_node_weight(const PodContract& contract, const std::string& node_name,
                              const kube::InternedLabels& node_labels);

}  // namespace weft::scheduler
