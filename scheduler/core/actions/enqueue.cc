// enqueue: Pending jobs, queue by queue and job by job in order, become Inqueue when the
// plugins' enqueueable votes allow (proportion/capacity: the queue's real capability;
// overcommit: the idle cluster).
#include <algorithm>
#include <map>

#include "scheduler/core/actions/actions.h"

namespace weft::scheduler {

void enqueue_action(Session& ssn) {
  std::map<std::string, std::vector<int>> by_queue;
  for (size_t i = 0; i < ssn.jobs.size(); ++i)
    if (!ssn.jobs[i].enqueued && ssn.jobs[i].blocked.empty()) by_queue[ssn.jobs[i].queue].push_back(static_cast<int>(i));
  for (auto& [queue, jobs] : by_queue) {
    std::sort(jobs.begin(), jobs.end(), [&](int a, int b) { return ssn.job_before(ssn.jobs[a], ssn.jobs[b]); });
    for (int i : jobs) {
      Job& j = ssn.jobs[i];
      std::string why;
      if (!ssn.job_enqueueable(j, &why)) {
        j.unschedulable = {"NotEnqueued", why.empty() ? "a plugin refused to enqueue the job" : why};
        continue;
      }
      j.enqueued = true;
      if (j.phase == "Pending") j.phase = "Inqueue";
      ssn.job_enqueued(j);
    }
  }
}

}  // namespace weft::scheduler
