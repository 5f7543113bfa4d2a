// gang-repair (weft): a gang below minMember that has running members (left half-bound
// by a crash, a lost leadership, a lost node or a deleted member) is dealt with before
// any other job of the cycle:
//   - completed inside the domain of its running members (same IB cluster, hard tier),
//     ahead of every new job;
//   - when that is not possible yet, the room it finds there is held from other jobs
//     for the cycle (pipelined, as for a preemptor), so nobody else fills its domain;
//   - once its newest member was bound longer ago than SessionOptions::gang_repair_timeout
//     (snapshot.now minus the PodScheduled time: no clock of its own), its running
//     members are evicted so that it can start whole elsewhere.
// A PodGroup Event (GangCompleted, GangUndone) and Decisions::gang_repairs say which.
// Runs only with gang semantics (the gang plugin's job-ready rule).
#pragma once

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

void repair_gangs(Session& ssn);

}  // namespace weft::scheduler
