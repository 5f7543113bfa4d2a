#include "scheduler/core/framework/domains.h"

#include <algorithm>

#include "scheduler/core/query/domain.h"

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
  if (!job.group) return ssn.topo().max_tier;
  return query::highest_tier(ssn.topo(), job.group->topology);
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
