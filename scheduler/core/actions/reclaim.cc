// reclaim: a starving job of a queue that is not overused takes room from reclaimable
// queues above their deserved share (proportion/capacity vote on the victims, gang and
// conformance too), when its own queue may take the pods (preemptive).
#include "scheduler/core/actions/actions.h"
#include "scheduler/core/actions/evict.h"

namespace weft::scheduler {

void reclaim_action(Session& ssn) { evict_for_jobs(ssn, EvictKind::Reclaim); }

}  // namespace weft::scheduler
