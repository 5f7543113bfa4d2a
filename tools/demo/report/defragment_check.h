// The defragment step's claims, from the API: weft-descheduler wrote the room's
// reservation on the gang's PodGroup and evicted its victims through the Eviction API;
// weft-scheduler then bound the whole gang inside the reserved leaf, and none of the
// victims' re-created pods inside it before the gang had minMember pods bound.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tools/demo/report/checks.h"
#include "tools/demo/report/cluster_view.h"

namespace weft::demo {

struct DefragmentEvidence {
  std::string gang;               // the PodGroup's name (namespace ml)
  nlohmann::json plan;            // weft-descheduler run --once --output json
  nlohmann::json podgroups;       // kubectl get podgroups -o json, right after the descheduler
  std::string api_log;            // kube-lite's request log (JSON lines)
  const ClusterView* before = nullptr;   // fragmented, the gang pending
  const ClusterView* after = nullptr;    // the gang bound, the victims re-created
};

// seen: {gang, domain, fabric, leaf, reserved_nodes, expires, evictions: [{pod, from,
// planned_to, reason, eviction_api, to, phase, bound_at}], gang_pods: [{pod, node, leaf}],
// gang_placed_at}.
Problems check_defragment(const DefragmentEvidence& e, nlohmann::json& seen);

}  // namespace weft::demo
