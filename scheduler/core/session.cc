#include "scheduler/core/session.h"

#include "scheduler/core/actions/actions.h"
#include "scheduler/core/actions/gang-repair/gang_repair.h"
#include "scheduler/core/framework/session.h"
#include "scheduler/core/plugins/volumes/binding.h"
#include "scheduler/core/plugins/volumes/volumes.h"

namespace weft::scheduler {

Decisions run_session(const Snapshot& snapshot, const Config& config, const SessionOptions& options) {
  Session ssn(snapshot, config, options);
  open_session(ssn);
  if (!config.has(Action::Enqueue))
    for (auto& j : ssn.jobs)
      if (j.blocked.empty()) j.enqueued = true;
  // Half-bound gangs first, before any action gives their room away (it allocates: only
  // with allocate configured).
  if (config.has(Action::Allocate)) repair_gangs(ssn);
  for (Action a : config.actions) run_action(a, ssn);
  write_statuses(ssn);
  if (volume_binding_enabled(config)) ssn.out.claim_writes = prebind_writes(snapshot, ssn.out.bindings);
  for (const auto& [name, q] : ssn.queues) {
    QueueShare share{.name = name, .weight = q.info->weight};
    Quantities allocated = q.allocated;
    allocated.erase("pods");
    share.deserved = to_resource_list(q.deserved);
    share.allocated = to_resource_list(allocated);
    share.deserved_units = q.deserved;
    share.allocated_units = allocated;
    ssn.out.queues.push_back(std::move(share));
  }
  return std::move(ssn.out);
}

}  // namespace weft::scheduler
