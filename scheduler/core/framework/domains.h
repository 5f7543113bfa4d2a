// The network domains a job may be placed in: HyperNodes up to its highest allowed tier
// for a job with a networkTopology (Volcano's allocate does this itself), narrowed by
// plugins' domain filters, or domains a plugin names (ib-cluster's fabrics).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

// The domains a topology key (a Kubernetes PodGroup's schedulingConstraints) names: nodes
// grouped by the value of that node label, nodes without it in none. For weft's derived
// tiers (weft.dev/ib-leaf, weft.dev/ib-spine) a value counts within its fabric, as the
// derived domains do; a key no node carries but a HyperNode tierName (or "leaf", "spine",
// "fabric") equals names those domains. Built once per session.
const std::vector<Domain>& key_domains(Session& ssn, const std::string& key);
// The same as references, in (tier, name) order.
std::vector<DomainRef> key_domain_refs(Session& ssn, const std::string& key);

// The highest tier a topology job may span: highestTierAllowed, or the tier of the
// HyperNodes whose spec.tierName is highestTierName, or the top tier. An error names a
// tierName no HyperNode has.
Result<int> highest_tier(Session& ssn, const Job& job);
// The same for one networkTopology (a sub-group's).
Result<int> highest_tier_of(Session& ssn, const NetworkTopology& nt);
// The job's placement is confined to domains (hard/soft topology or a plugin's domains).
bool constrained(Session& ssn, const Job& job);
// The job may never spread over several domains (hard topology, or a plugin's domains).
bool domain_bound(Session& ssn, const Job& job);
// The domains placement tries first, holding every pod of the job already bound.
std::vector<DomainRef> allowed_domains(Session& ssn, const Job& job);
// The domains the job may never leave: HyperNodes for a hard topology, else a plugin's.
std::vector<DomainRef> confining_domains(Session& ssn, const Job& job);

}  // namespace weft::scheduler
