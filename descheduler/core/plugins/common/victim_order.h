// The order in which upstream's utilization plugins take victims from a node
// (SortPodsBasedOnPriorityLowToHigh): pods without a priority first, then lower priority,
// then BestEffort, Burstable, Guaranteed, and pods annotated prefer-no-eviction last.
#pragma once

#include "descheduler/core/cluster.h"

namespace weft::descheduler::plugins {

// True when `a` goes before `b`; equal pods keep their order (use a stable sort).
inline bool evicted_before(const PodInfo& a, const PodInfo& b) {
  if (a.has_priority != b.has_priority) return !a.has_priority;
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.qos != b.qos) return a.qos < b.qos;
  return !a.prefer_no_eviction && b.prefer_no_eviction;
}

}  // namespace weft::descheduler::plugins
