// The cluster a cycle plans on: from a scenario file (plan) or listed from the API (run).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/cluster.h"
#include "descheduler/core/defragment/world.h"
#include "kube/client/client.h"

namespace weft::descheduler {

Result<Cluster> cluster_from_file(const std::string& path);

// Page size of the cluster lists. Large, so a cluster within Kubernetes' tested limits
// (5,000 nodes, 150,000 pods) is listed in one request per kind whatever its size; a
// bigger one pages, which bounds the size of one response.
inline constexpr int64_t kListPageLimit = 200000;
// Pods, most of the cluster, come in pages of this many: the next page is fetched while
// one is decoded (kube/client/list_ahead.h), so the API server's and the client's work
// overlap.
inline constexpr int64_t kPodPageLimit = 5000;
// How the pods are listed: bound pods of every phase, in pages of kPodPageLimit;
// GangDefragment's world (`scheduling`): every live pod, pending ones too.
kube::ListOptions pod_list_options(bool scheduling);

// One list per kind (one request each up to kListPageLimit items; pods in pages of
// kPodPageLimit), all requested at once and read in order as they arrive: nodes, bound
// pods, PodGroups, PriorityClasses, PodDisruptionBudgets, HyperNodes, the storage kinds,
// Namespaces. Items are added as they are decoded. Kinds the server does not serve (no
// Volcano CRDs) or the service account may not list are noted in warnings, not errors.
Result<Cluster> cluster_from_api(kube::Client& client, std::vector<std::string>& warnings);

// GangDefragment's world (its cluster is what the two above build): the same lists plus
// pending pods and Queues.
Result<defragment::World> world_from_file(const std::string& path, TimePoint now);
Result<defragment::World> world_from_api(kube::Client& client, std::vector<std::string>& warnings, TimePoint now);

}  // namespace weft::descheduler
