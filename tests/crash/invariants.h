// What must hold in the API after any crash and restart of weft's daemons, read from
// the API alone (and kube-lite's request log). Each check returns "" or what is wrong.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"
#include "tests/support/kube_lite.h"

namespace weft::testing::crash {

// What the API holds now, in every namespace.
struct ClusterView {
  std::vector<nlohmann::json> nodes, pods, podgroups, budgets;
  static ClusterView read(kube::Client& client);
  // PodGroup "ns/name" -> bound (non-terminal) pods of it.
  std::map<std::string, int> bound_by_group() const;
};

// The PodGroup "ns/name" a pod belongs to, "" for none.
std::string group_of(const nlohmann::json& pod);

// Every gang has minMember pods bound, or none.
std::string gangs_whole_or_pending(const ClusterView& v);
// No node holds more cpu, memory or pods than it has allocatable.
std::string no_node_over_capacity(const ClusterView& v);
// Every PodDisruptionBudget has at least the healthy pods it asks for.
std::string no_budget_violated(const ClusterView& v);
// A room reserved for a gang (weft.dev/reserved-room) is left only on a gang still waiting,
// and while it is live its nodes have room for the gang's pending pods.
std::string no_idle_reservation(const ClusterView& v);
// No pod was evicted more often than it was created ("ns/name" in `created`, 1 if absent).
std::string no_pod_evicted_twice(const std::vector<nlohmann::json>& requests, const std::map<std::string, int>& created);

// All of the above, joined.
std::string all_invariants(const ClusterView& v, const std::vector<nlohmann::json>& requests,
                           const std::map<std::string, int>& created);

}  // namespace weft::testing::crash
