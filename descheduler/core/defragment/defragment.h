// GangDefragment: room for pending domain-bound gangs. A gang bound to one domain
// (`weft.dev/ib-cluster: same`, or a hard networkTopology) that cannot be placed gets the
// domain where the cheapest set of evictions lets all the pods it still needs fit, and
// that set is evicted; the freed room is reserved for it (kube/reservation.h). Gangs go
// by priority (highest first), then queue and name; a room given to one gang is never
// counted for another. Every victim must be movable by all the descheduler's rules: the
// evictor's, priority below the gang's, its PodDisruptionBudget, its own gang kept at
// minMember, the eviction limits, its cooldown, and a node outside the chosen domain
// (not reserved, inside its own fabric or tier domain) where it fits. No I/O.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/defragment/args.h"
#include "descheduler/core/defragment/world.h"
#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/planner.h"
#include "descheduler/core/policy.h"
#include "descheduler/core/state.h"

namespace weft::descheduler::defragment {

struct Options {
  TimePoint now;
  Seconds cooldown{600};
};

struct GangRoom {
  std::string gang;                          // PodGroup key
  kube::Reservation reservation;             // write on the PodGroup before evicting
  std::vector<PlannedEviction> evictions;    // reason "defragment: gang <key> into <domain>"
};

// A gang that was looked at and is not helped this cycle (nothing evicted for it).
struct Unhelped {
  std::string gang;
  std::string reason;   // fits, reserved, queue-closed, not-enough-pods, no-domain, no-movable-room,
                        // too-many-evictions, eviction-limit, victims-cannot-move
  std::string detail;
};

struct Outcome {
  std::vector<GangRoom> rooms;
  std::vector<Unhelped> unhelped;
};

// Under the evictor of the policy's profile that enables GangDefragment (else its first).
// Errors only for a policy that cannot be applied (an unknown PriorityClass).
Result<Outcome> plan_defragment(const World& world, const Policy& policy, const Args& args,
                                const DeschedulerState& state, const Options& options);

// The same under a cycle's evictor (the profile runner's): every victim is allowed and
// recorded by it (evictor_plan is where it records them).
Outcome plan_defragment(const World& world, const Args& args, framework::Evictor& evictor, const Plan& evictor_plan,
                        const Options& options);

// The merge patch that writes a room's reservation on its PodGroup (before any eviction).
nlohmann::json reservation_patch(const GangRoom& room);

// Adds the rooms' evictions to the plan (after those already there), then note_outcome.
void add_to_plan(const Outcome& outcome, Plan& plan);
// One note per room and per gang not helped, and the rooms' reservations, so `plan` and
// `run` print them like any other move (the evictor recorded the evictions).
void note_outcome(const Outcome& outcome, Plan& plan);

}  // namespace weft::descheduler::defragment
