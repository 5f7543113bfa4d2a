// Water-filling of deserved shares by weight, capped by capability and by what each queue
// asks for (a stated spec.deserved is taken as it is; guarantee is a floor). Sums are
// doubles in milli units: no overflow at 10,000 nodes of 4 TiB.
#pragma once

#include <map>
#include <string>

#include "scheduler/core/framework/job.h"

namespace weft::scheduler {

// Fills QueueAccount::deserved for every queue from `total` (the capacity work can use).
void compute_deserved(std::map<std::string, QueueAccount>& queues, const Quantities& total);

// max over resources of allocated / deserved (a resource allocated without any deserved counts as 1e9).
double queue_share(const QueueAccount& q);

}  // namespace weft::scheduler
