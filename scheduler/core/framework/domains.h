// The network domains a job may be placed in: HyperNodes up to its highest allowed tier
// for a job with a networkTopology (Volcano's allocate does this itself), narrowed by
// plugins' domain filters, or domains a plugin names (ib-cluster's fabrics).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

// The highest tier a topology job may span: highestTierAllowed, or the tier of the
// HyperNodes whose spec.tierName is highestTierName, or the top tier. An error names a
// tierName no HyperNode has.
Result<int> highest_tier(Session& ssn, const Job& job);
// The job's placement is confined to domains (hard/soft topology or a plugin's domains).
bool constrained(Session& ssn, const Job& job);
// The job may never spread over several domains (hard topology, or a plugin's domains).
bool domain_bound(Session& ssn, const Job& job);
// The domains placement tries first, holding every pod of the job already bound.
std::vector<DomainRef> allowed_domains(Session& ssn, const Job& job);
// The domains the job may never leave: HyperNodes for a hard topology, else a plugin's.
std::vector<DomainRef> confining_domains(Session& ssn, const Job& job);

}  // namespace weft::scheduler
