// proportion: the capacity work can use, and each queue's deserved share by weight
// (water-filling capped by capability and by what the queue asks for; spec.deserved and
// guarantee honoured). Internal to the core.
#pragma once

#include <map>
#include <string>

#include "kube/quantity.h"
#include "scheduler/core/config.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

using Shares = std::map<std::string, double>;   // resource -> milli units (fractions allowed)

struct QueueAccount {
  const QueueInfo* info = nullptr;
  kube::ResourceList allocated;   // bound pods of its jobs
  kube::ResourceList request;     // allocated + every pending pod of its jobs
  kube::ResourceList inqueue;     // minResources of jobs Inqueue without bound pods
  Shares deserved;
};

// Ready, schedulable nodes without hard taints (unless the plugin tolerates them) that
// match the plugin's node selector. "pods" is left out.
kube::ResourceList usable_capacity(const Snapshot& snapshot, const ProportionArgs& args);

void compute_deserved(std::map<std::string, QueueAccount>& queues, const kube::ResourceList& total);

// allocated + request <= deserved on every resource the request names (pods aside).
bool within_deserved(const QueueAccount& q, const kube::ResourceList& extra, std::string* short_resource);
// max over resources of allocated / deserved (0 when deserved is empty).
double queue_share(const QueueAccount& q);
// Some resource the request names is allocated above deserved.
bool over_deserved(const QueueAccount& q, const kube::ResourceList& victim_request);

}  // namespace weft::scheduler
