// gangreclaim (Volcano 1.15): a starving gang of a queue that is not overused takes room
// from reclaimable queues above their deserved share, planned whole in one candidate
// domain (at most maxDomains tried); with allowWholeBundle a victim gang may be taken whole.
#include "scheduler/core/actions/actions.h"
#include "scheduler/core/actions/evict.h"

namespace weft::scheduler {

void gangreclaim_action(Session& ssn) {
  const GangEvictionArgs& a = ssn.config.gang_reclaim;
  evict_for_jobs(ssn, EvictKind::Reclaim, {.max_domains = a.max_domains, .whole_gangs = a.allow_whole_bundle});
}

}  // namespace weft::scheduler
