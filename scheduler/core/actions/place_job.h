// Placing one job's pending pods (allocate and backfill): gang all-or-nothing through a
// Statement, the job's network domains (HyperNode tiers, IB clusters), the queue's
// allocatable check per pod. Internal to the actions.
#pragma once

#include <vector>

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

// Places the job's `tasks` that are still unplaced; commits the bindings when the job is
// ready (or, not ready, pipelined), else discards them and records why.
bool place_job(Session& ssn, Job& job, const std::vector<int>& tasks);

}  // namespace weft::scheduler
