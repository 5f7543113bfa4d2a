// The top-level evictionFailureEventNotification: a Warning Event "EvictionFailed" on a pod
// whose eviction the API refused or failed, as the Kubernetes descheduler records it.
#pragma once

#include <string>

#include "common/result.h"
#include "kube/client/client.h"

namespace weft::descheduler {

// Evicts through `client` with the policy's gracePeriodSeconds (-1: the pod's own) and,
// when `events` is set, records the failure (an error, or a refusal by a budget) on the pod.
Result<kube::EvictionResult> evict_and_report(kube::Client& client, const std::string& ns, const std::string& pod,
                                              int64_t grace_seconds, bool events);

}  // namespace weft::descheduler
