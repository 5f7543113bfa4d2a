// The DefaultEvictor's per-pod rules: which pods may be evicted at all, whatever the load.
#pragma once

#include <string>

#include "common/result.h"
#include "descheduler/core/cluster.h"
#include "descheduler/core/policy.h"

namespace weft::descheduler {

inline constexpr int32_t kSystemCriticalPriority = 2000000000;   // system-cluster-critical

class Evictability {
 public:
  // Resolves priorityThreshold.name against the cluster's PriorityClasses (and the two
  // built-in system classes); an unknown name is an error naming it.
  static Result<Evictability> create(const Policy& policy, const Cluster& cluster, TimePoint now);
  // "" when the pod may be evicted, else the reason it may not ("daemonset", "pvc", ...).
  std::string blocker(const PodInfo& pod) const;

 private:
  bool namespace_allowed(const PodInfo& pod) const;
  std::string rule_blocker(const PodInfo& pod) const;   // the rules the evict annotation lifts

  const Policy* policy_ = nullptr;
  const Cluster* cluster_ = nullptr;
  TimePoint now_;
  int32_t threshold_ = kSystemCriticalPriority;
};

}  // namespace weft::descheduler
