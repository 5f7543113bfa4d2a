// GangDefragment's part of a cycle against the API: every room's reservation is written on
// its gang's PodGroup first; after `settle` (a pause, so the schedulers' PodGroup watches
// show the reservations before any victim's replacement appears) the victims are evicted.
// A room whose reservation cannot be written evicts nothing (no scheduler would hold it).
// With a journal (the state ConfigMap), the rooms are written down before any reservation
// and cleared after the evictions: a run killed in between is finished by the next one
// (resume_rooms), and a room that freed nothing does not keep its reservation.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/app/cycle.h"
#include "descheduler/app/state_store.h"
#include "descheduler/core/defragment/defragment.h"

namespace weft::descheduler {

using PatchPodGroupFn = std::function<Status(const std::string& ns, const std::string& name, const nlohmann::json& patch)>;
using GetObjectFn = std::function<Result<nlohmann::json>(const std::string& ns, const std::string& name)>;

// Appends what was evicted to plan.evictions and what was not to plan.skipped (reasons
// "reservation-not-written: ...", "journal-not-written: ...", or execute_evictions' own),
// one note per room carried out.
void carry_out_rooms(const defragment::Outcome& outcome, Plan& plan, const PatchPodGroupFn& patch,
                     const EvictFn& evict, const std::function<void()>& settle, const RoomJournal& journal = {});

// Finishes the rooms a killed run left in the journal: for a room whose reservation is
// still on its PodGroup, each victim still on the node it was planned from is evicted (one
// already gone is not evicted again); a room that freed nothing has its reservation
// removed. The journal is then cleared. A journal that cannot be read is an error.
Status resume_rooms(const RoomJournal& journal, Plan& plan, const GetObjectFn& get_podgroup, const GetObjectFn& get_pod,
                    const PatchPodGroupFn& patch, const EvictFn& evict);

}  // namespace weft::descheduler
