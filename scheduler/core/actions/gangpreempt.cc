// gangpreempt (Volcano 1.15): a starving gang takes room from lower-priority gangs of its
// own queue, its pods planned at once in one candidate domain (at most maxDomains
// tried); with allowWholeBundle a victim gang may be taken whole. weft's preempt already
// plans whole gangs in domains; this is that planner with the action's arguments.
#include "scheduler/core/actions/actions.h"
#include "scheduler/core/actions/evict.h"

namespace weft::scheduler {

void gangpreempt_action(Session& ssn) {
  const GangEvictionArgs& a = ssn.config.gang_preempt;
  evict_for_jobs(ssn, EvictKind::Preempt, {.max_domains = a.max_domains, .whole_gangs = a.allow_whole_bundle});
}

}  // namespace weft::scheduler
