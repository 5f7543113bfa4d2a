#include "descheduler/core/topology.h"

namespace weft::descheduler {
namespace {

std::string label_or_empty(const NodeInfo& n, const char* key) {
  auto it = n.labels.find(key);
  return it == n.labels.end() ? "" : it->second;
}

void require(DomainRule& rule, const NodeInfo& source, const char* key) {
  for (const auto& [k, _] : rule.required)
    if (k == key) return;
  rule.required.emplace_back(key, label_or_empty(source, key));
}

}  // namespace

bool DomainRule::allows(const NodeInfo& target) const {
  for (const auto& [key, value] : required) {
    if (value.empty()) return false;
    auto it = target.labels.find(key);
    if (it == target.labels.end() || it->second != value) return false;
  }
  return true;
}

DomainRule domain_rule(const PodInfo& pod, const NodeInfo& source, const Cluster& cluster) {
  DomainRule rule;
  bool source_on_ib = label_or_empty(source, keys::kRdma) == "ib" || !label_or_empty(source, keys::kFabric).empty();
  if (pod.requests_rdma && source_on_ib) require(rule, source, keys::kFabric);
  if (pod.group.empty()) return rule;
  auto g = cluster.groups.find(pod.ns + "/" + pod.group);
  if (g == cluster.groups.end()) return rule;
  if (g->second.same_ib_cluster) require(rule, source, keys::kFabric);
  if (g->second.hard_tier) {
    int tier = *g->second.hard_tier;
    if (tier <= 1) require(rule, source, keys::kLeaf);
    else if (tier == 2) require(rule, source, keys::kSpine);
    else if (tier == 3) require(rule, source, keys::kFabric);
    // Tiers above the fabric span the whole cluster.
  }
  return rule;
}

}  // namespace weft::descheduler
