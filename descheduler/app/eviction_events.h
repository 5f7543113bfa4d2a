// The Events the Kubernetes descheduler records about the pods it evicts: a Normal Event
// per eviction (reason: the plugin that asked), and, with the top-level
// evictionFailureEventNotification, a Warning "EvictionFailed" per eviction that a limit,
// a budget or the API refused.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/planner.h"
#include "descheduler/core/policy.h"
#include "kube/client/client.h"

namespace weft::descheduler {

// A skip that was a refused eviction, as upstream's PodEvictor tells them apart (its
// Warning Events and its pods_evicted_total "result" say which).
struct RefusedEviction {
  enum class By { None, TotalLimit, NodeLimit, NamespaceLimit, Api } by = By::None;
  std::string api_message;   // By::Api: what the API (or a budget) said
};
// None: the pod was never put to the limits or the API (filtered, not attempted).
RefusedEviction refused_eviction(const PlannedSkip& skip);

struct EvictionEvent {
  std::string ns, pod;
  std::string type;      // Normal or Warning
  std::string reason;    // the plugin, or EvictionFailed
  std::string message;
};

// The Events a carried-out plan gives rise to: one per eviction, and with
// policy.eviction_failure_events one per skip that was a refused eviction.
std::vector<EvictionEvent> eviction_events(const Plan& plan, const Policy& policy);

// Posts them; an Event that cannot be posted is logged, never fails the cycle.
void record_eviction_events(kube::Client& client, const Plan& plan, const Policy& policy);

}  // namespace weft::descheduler
