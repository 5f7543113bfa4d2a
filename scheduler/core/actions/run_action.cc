#include "scheduler/core/actions/actions.h"

namespace weft::scheduler {

void run_action(Action a, Session& ssn) {
  switch (a) {
    case Action::Enqueue: enqueue_action(ssn); break;
    case Action::Allocate: allocate_action(ssn); break;
    case Action::Backfill: backfill_action(ssn); break;
    case Action::Preempt: preempt_action(ssn); break;
    case Action::Reclaim: reclaim_action(ssn); break;
    case Action::GangPreempt: gangpreempt_action(ssn); break;
    case Action::GangReclaim: gangreclaim_action(ssn); break;
  }
}

}  // namespace weft::scheduler
