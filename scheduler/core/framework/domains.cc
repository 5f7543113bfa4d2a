#include "scheduler/core/framework/domains.h"

#include <algorithm>
#include <map>

#include "common/keys.h"

namespace weft::scheduler {
namespace {

using Mode = NetworkTopology::Mode;

Mode mode_of(const Job& job) { return job.group ? job.group->topology.mode : Mode::None; }
bool keyed(const Job& job) { return job.group && !job.group->topology_key.empty(); }

std::vector<Domain> label_domains(Session& ssn, const std::string& key) {
  const bool per_fabric = key == keys::kLeaf || key == keys::kSpine;
  std::map<std::string, int> index;
  std::vector<Domain> out;
  for (size_t n = 0; n < ssn.snap.nodes.size(); ++n) {
    const NodeInfo& node = ssn.snap.nodes[n];
    const std::string* v = node.labels.find(key);
    if (!v) continue;
    const std::string* fabric = per_fabric ? node.labels.find(keys::kFabric) : nullptr;
    std::string name = key + "=" + *v + (fabric ? " (" + std::string(keys::kFabric) + "=" + *fabric + ")" : "");
    auto [it, fresh] = index.try_emplace(name, static_cast<int>(out.size()));
    if (fresh) out.push_back(Domain{.name = name, .tier = 1, .tier_name = key});
    out[it->second].nodes.push_back(static_cast<int>(n));
  }
  if (!out.empty()) return out;
  for (const auto& d : ssn.topo().domains)
    if (d.tier_name == key) out.push_back(d);
  return out;
}

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

const std::vector<Domain>& key_domains(Session& ssn, const std::string& key) {
  auto it = ssn.key_domain_cache.find(key);
  if (it == ssn.key_domain_cache.end()) it = ssn.key_domain_cache.emplace(key, label_domains(ssn, key)).first;
  return it->second;
}

std::vector<DomainRef> key_domain_refs(Session& ssn, const std::string& key) {
  std::vector<DomainRef> out;
  for (const auto& d : key_domains(ssn, key)) out.push_back({d.name, d.tier, &d.nodes});
  return out;
}

Result<int> highest_tier(Session& ssn, const Job& job) {
  if (!job.group) return ssn.topo().max_tier;
  return highest_tier_of(ssn, job.group->topology);
}

Result<int> highest_tier_of(Session& ssn, const NetworkTopology& nt) {
  const Topology& topo = ssn.topo();
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
  return mode_of(job) != Mode::None || keyed(job) || (ssn.has_job_domains() && ssn.extra_domains(job));
}

bool domain_bound(Session& ssn, const Job& job) {
  return mode_of(job) == Mode::Hard || keyed(job) || (ssn.has_job_domains() && ssn.extra_domains(job));
}

std::vector<DomainRef> allowed_domains(Session& ssn, const Job& job) {
  if (keyed(job)) return holding_bound(ssn, job, key_domain_refs(ssn, job.group->topology_key));
  if (mode_of(job) != Mode::None) return holding_bound(ssn, job, hypernodes(ssn, job));
  return holding_bound(ssn, job, ssn.extra_domains(job).value_or(std::vector<DomainRef>{}));
}

std::vector<DomainRef> confining_domains(Session& ssn, const Job& job) {
  if (keyed(job)) return holding_bound(ssn, job, key_domain_refs(ssn, job.group->topology_key));
  if (mode_of(job) == Mode::Hard) return holding_bound(ssn, job, hypernodes(ssn, job));
  return holding_bound(ssn, job, ssn.extra_domains(job).value_or(std::vector<DomainRef>{}));
}

}  // namespace weft::scheduler
