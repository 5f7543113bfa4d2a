// The actions, one file each, run in the configured order over one session.
#pragma once

#include "scheduler/core/config.h"
#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

void enqueue_action(Session& ssn);
void allocate_action(Session& ssn);
void backfill_action(Session& ssn);
void preempt_action(Session& ssn);
void reclaim_action(Session& ssn);
void gangpreempt_action(Session& ssn);
void gangreclaim_action(Session& ssn);

// Allocation of the enqueued jobs' pending pods, queue by queue in queue order (allocate:
// jobs with pods that request something; backfill: jobs whose pending pods request nothing).
void allocate_jobs(Session& ssn, bool best_effort_only);

void run_action(Action a, Session& ssn);

}  // namespace weft::scheduler
