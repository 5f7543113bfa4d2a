// preempt: a starving job takes room from other jobs of its own queue (priority,
// gang, conformance and drf vote on the victims; pods marked volcano.sh/preemptable:
// "false" are never taken; a best-effort preemptor takes only best-effort pods). The
// queue's allocatable check comes after the evictions, so a queue at its deserved
// share or capability still preempts inside itself.
#include "scheduler/core/actions/actions.h"
#include "scheduler/core/actions/evict.h"

namespace weft::scheduler {

void preempt_action(Session& ssn) { evict_for_jobs(ssn, EvictKind::Preempt); }

}  // namespace weft::scheduler
