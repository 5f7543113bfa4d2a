// Water-filling of deserved shares by weight, capped by capability and by what each queue
// asks for (a stated spec.deserved is taken as it is; guarantee is a floor). Sums are
// doubles in milli units: no overflow at 10,000 nodes of 4 TiB.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "scheduler/core/framework/job.h"
#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

// Fills QueueAccount::deserved for every queue from `total` (the capacity work can use).
void compute_deserved(std::map<std::string, QueueAccount>& queues, const Quantities& total);

// max over resources of allocated / deserved (a resource allocated without any deserved counts as 1e9).
double queue_share(const QueueAccount& q);

// The share plugins' queue order: higher spec.priority first, then the lower share.
int compare_queues(const QueueAccount& a, const QueueAccount& b);

// The share plugins' reclaim: candidates taken in order while `take` agrees. `left` is
// what the victim's queue still holds (its allocation less the victims taken before);
// `take` subtracts the pod from it when it takes the pod.
using TakeVictim = std::function<bool(Quantities& left, const QueueAccount& queue, int pod)>;
std::vector<int> reclaim_victims(Session& ssn, const std::vector<int>& candidates, const TakeVictim& take);

}  // namespace weft::scheduler
