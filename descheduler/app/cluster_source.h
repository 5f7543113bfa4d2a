// The cluster a cycle plans on: from a scenario file (plan) or listed from the API (run).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/cluster.h"
#include "kube/client/client.h"

namespace weft::descheduler {

Result<Cluster> cluster_from_file(const std::string& path);

// One unpaged list per kind, whatever the cluster's size: nodes, bound live pods,
// PodGroups, PriorityClasses. Items are added as they are decoded. Kinds the server
// does not serve (no Volcano CRDs) are noted in warnings, not errors.
Result<Cluster> cluster_from_api(kube::Client& client, std::vector<std::string>& warnings);

}  // namespace weft::descheduler
