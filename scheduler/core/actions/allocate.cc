// allocate: the queue first in queue order (not overused) gives its next job in job
// order; the job's pods are placed at once (place_job) or not at all.
#include <algorithm>
#include <map>

#include "scheduler/core/actions/actions.h"
#include "scheduler/core/actions/place_job.h"

namespace weft::scheduler {

void allocate_jobs(Session& ssn, bool best_effort_only) {
  std::map<std::string, std::vector<int>> by_queue;
  for (size_t i = 0; i < ssn.jobs.size(); ++i) {
    Job& j = ssn.jobs[i];
    if (!j.blocked.empty() || !j.enqueued || j.pending.empty() || !ssn.queue_of(j)) continue;
    if (best_effort_only == j.has_nonbest_effort_pending) continue;
    if (auto why = ssn.job_valid(j)) {
      j.unschedulable = {"NotEnoughPods", *why};
      continue;
    }
    by_queue[j.queue].push_back(static_cast<int>(i));
  }
  struct Entry {
    QueueAccount* queue;
    std::vector<int> jobs;
    size_t next = 0;
  };
  std::vector<Entry> queues;
  for (auto& [name, jobs] : by_queue) {
    std::sort(jobs.begin(), jobs.end(), [&](int a, int b) { return ssn.job_before(ssn.jobs[a], ssn.jobs[b]); });
    queues.push_back({&ssn.queues.at(name), std::move(jobs)});
  }
  while (true) {
    Entry* next = nullptr;
    for (auto& e : queues) {
      if (e.next >= e.jobs.size()) continue;
      if (!next || ssn.queue_before(*e.queue, *next->queue)) next = &e;
    }
    if (!next) break;
    Job& j = ssn.jobs[next->jobs[next->next++]];
    if (!best_effort_only && ssn.overused(*next->queue)) {   // backfill does not look at shares
      j.unschedulable = {"NotEnoughResources", "queue '" + j.queue + "' is overused (allocated at or above its "
                                                                     "deserved share on every resource)"};
      continue;
    }
    place_job(ssn, j, j.pending);
  }
}

void allocate_action(Session& ssn) { allocate_jobs(ssn, false); }

}  // namespace weft::scheduler
