// Deserved shares of the queues over the summed usable capacity of the members: weights
// fill the capacity in rounds, each queue capped by its capability and by what it asks
// for (allocated + suspended bindings), guarantee first; a resource in spec.deserved is
// that queue's share outright (capped by capability). Values in milli units.
#pragma once

#include <map>
#include <string>

#include "kube/quantity.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler::global {

struct QueueDemand {
  const QueueInfo* info = nullptr;
  kube::ResourceList allocated, request;   // request includes allocated
};

std::map<std::string, kube::ResourceList> deserved_shares(const std::map<std::string, QueueDemand>& queues,
                                                          const kube::ResourceList& total);

// max over the resources `of` names of allocated / deserved (allocated with no deserved: infinite).
double share_of(const kube::ResourceList& allocated, const kube::ResourceList& deserved, const kube::ResourceList& of);

}  // namespace weft::scheduler::global
