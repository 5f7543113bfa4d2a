#include "scheduler/core/framework/domains.h"

#include <algorithm>

namespace weft::scheduler {
namespace {

using Mode = NetworkTopology::Mode;

Mode mode_of(const Job& job) { return job.group ? job.group->topology.mode : Mode::None; }

std::vector<DomainRef> holding_bound(Session& ssn, const Job& job, std::vector<DomainRef> out) {
  std::vector<int> bound;
  for (int p : job.pods)   // a member on its way out (terminating) pins nothing
    if (ssn.node_of_pod[p] >= 0 && !ssn.snap.pods[p].terminating) bound.push_back(ssn.node_of_pod[p]);
  std::erase_if(out, [&](const DomainRef& d) {
    for (int n : bound)
      if (!std::binary_search(d.nodes->begin(), d.nodes->end(), n)) return true;
    return false;
  });
  return out;
}

std::vector<DomainRef> hypernodes(Session& ssn, const Job& job) {
  std::vector<DomainRef> out;
  auto highest = highest_tier(ssn, job);
  if (!highest) return out;
  for (const auto& d : ssn.topo().domains)
    if (d.tier <= *highest && !d.nodes.empty() && ssn.domain_allowed(job, d)) out.push_back({d.name, d.tier, &d.nodes});
  return out;
}

}  // namespace

Result<int> highest_tier(Session& ssn, const Job& job) {
  const Topology& topo = ssn.topo();
  if (!job.group) return topo.max_tier;
  const NetworkTopology& nt = job.group->topology;
  if (!nt.highest_tier_name.empty()) {
    std::optional<int> tier;
    for (const auto& d : topo.domains)
      if (d.tier_name == nt.highest_tier_name) tier = std::max(tier.value_or(0), d.tier);
    if (!tier)
      return make_error("networkTopology.highestTierName '" + nt.highest_tier_name +
                        "' matches no HyperNode spec.tierName");
    return *tier;
  }
  return nt.highest_tier > 0 ? nt.highest_tier : topo.max_tier;
}

bool constrained(Session& ssn, const Job& job) {
  return mode_of(job) != Mode::None || (ssn.has_job_domains() && ssn.extra_domains(job));
}

bool domain_bound(Session& ssn, const Job& job) {
  return mode_of(job) == Mode::Hard || (ssn.has_job_domains() && ssn.extra_domains(job));
}

std::vector<DomainRef> allowed_domains(Session& ssn, const Job& job) {
  if (mode_of(job) != Mode::None) return holding_bound(ssn, job, hypernodes(ssn, job));
  return holding_bound(ssn, job, ssn.extra_domains(job).value_or(std::vector<DomainRef>{}));
}

std::vector<DomainRef> confining_domains(Session& ssn, const Job& job) {
  if (mode_of(job) == Mode::Hard) return holding_bound(ssn, job, hypernodes(ssn, job));
  return holding_bound(ssn, job, ssn.extra_domains(job).value_or(std::vector<DomainRef>{}));
}

}  // namespace weft::scheduler
