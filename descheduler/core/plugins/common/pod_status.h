// What the upstream strategy plugins read from a pod beyond the scheduling fields: its
// containers' states and restarts, its conditions, status.reason and every owner. Decoded
// in the same pass as the rest of the pod (descheduler/core/pod_facts.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/shared_string.h"
#include "descheduler/core/load.h"

namespace weft::descheduler {

struct ContainerState {
  enum class Kind : uint8_t { App, Init, Ephemeral };
  Kind kind = Kind::App;
  int32_t restarts = 0;                  // restartCount
  SharedString waiting_reason;           // state.waiting.reason
  SharedString terminated_reason;        // state.terminated.reason
  std::optional<int32_t> exit_code;      // state.terminated.exitCode
};

struct PodCondition {
  SharedString type, status, reason;
  std::optional<TimePoint> last_transition;
};

struct OwnerRef {
  SharedString kind, name;
};

struct PodStatusInfo {
  std::optional<TimePoint> created;      // metadata.creationTimestamp
  SharedString reason;                   // status.reason ("NodeLost", "Evicted", ...)
  std::vector<ContainerState> containers;   // app, then init, then ephemeral
  std::vector<PodCondition> conditions;
  std::vector<OwnerRef> owners;          // every ownerReference, in order
  std::vector<SharedString> images;      // spec.containers[].image, sorted
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution is set (the
  // rule itself is PodInfo::affinity; a nodeSelector alone is not node affinity upstream).
  bool requires_node_affinity = false;
};

}  // namespace weft::descheduler
