// GangDefragment's part of a cycle against the API: every room's reservation is written on
// its gang's PodGroup first; after `settle` (a pause, so the schedulers' PodGroup watches
// show the reservations before any victim's replacement appears) the victims are evicted.
// A room whose reservation cannot be written evicts nothing (no scheduler would hold it).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/app/cycle.h"
#include "descheduler/core/defragment/defragment.h"

namespace weft::descheduler {

using PatchPodGroupFn = std::function<Status(const std::string& ns, const std::string& name, const nlohmann::json& patch)>;

// Appends what was evicted to plan.evictions and what was not to plan.skipped (reasons
// "reservation-not-written: ...", or execute_evictions' own), one note per room carried out.
void carry_out_rooms(const defragment::Outcome& outcome, Plan& plan, const PatchPodGroupFn& patch,
                     const EvictFn& evict, const std::function<void()>& settle);

}  // namespace weft::descheduler
