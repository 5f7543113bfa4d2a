// backfill: jobs whose pending pods request nothing (best-effort) are placed after the
// others, on any node where they pass the filters and the pod count.
#include "scheduler/core/actions/actions.h"

namespace weft::scheduler {

void backfill_action(Session& ssn) { allocate_jobs(ssn, true); }

}  // namespace weft::scheduler
