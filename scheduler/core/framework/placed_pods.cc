#include "scheduler/core/framework/placed_pods.h"

#include <algorithm>
#include <unordered_map>

#include "scheduler/core/framework/spread_rules.h"

namespace weft::scheduler {

kube::Labels namespace_labels(const Snapshot& snap, const std::string& name) {
  auto it = snap.namespaces.find(name);
  kube::Labels labels = it == snap.namespaces.end() ? kube::Labels{} : it->second;
  labels["kubernetes.io/metadata.name"] = name;   // the API server sets it on every Namespace
  return labels;
}

bool PodSelection::matches(const Snapshot& snap, const PodInfo& pod) const {
  if (!selector) return false;
  const std::string& ns = pod.namespace_name;
  bool in_namespace = std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
  if (!in_namespace && namespace_selector)
    in_namespace = namespace_selector->empty() || namespace_selector->matches(namespace_labels(snap, ns));
  if (!in_namespace || !selector->matches(pod.labels)) return false;
  for (const auto& r : label_keys)
    if (!r.matches(pod.labels)) return false;
  return true;
}

PodSelection selection_of(const PodAffinityTerm& term, const PodInfo& owner) {
  PodSelection s;
  s.selector = term.selector;
  s.label_keys = label_key_requirements(term.match_label_keys, term.mismatch_label_keys, owner.labels);
  s.namespaces = term.namespaces;
  s.namespace_selector = term.namespace_selector;
  if (s.namespaces.empty() && !s.namespace_selector) s.namespaces.push_back(owner.namespace_name);
  return s;
}

PodSelection spread_selection(const SpreadConstraint& c, const PodInfo& owner) {
  PodSelection s;
  s.selector = c.selector;
  s.label_keys = label_key_requirements(c.match_label_keys, {}, owner.labels);
  s.namespaces = {owner.namespace_name};
  return s;
}

bool spread_counts_node(const SpreadConstraint& c, const PodInfo& owner, const NodeInfo& n) {
  if (c.honor_node_affinity && !owner.affinity().empty() && !owner.affinity().matches(n.name, n.labels)) return false;
  return !(c.honor_taints && kube::first_untolerated_hard_taint(n.taints, owner.tolerations()));
}

std::string term_identity(const PodInfo& owner, const std::string& tag, const std::vector<std::string>& match_keys,
                          const std::vector<std::string>& mismatch_keys) {
  std::string id = tag + "#" + std::string(owner.namespace_name) + "#" + std::string(owner.filter_signature);
  for (const auto* keys : {&match_keys, &mismatch_keys})
    for (const auto& k : *keys) {
      const std::string* v = owner.labels.find(k);
      id += "#" + k + "=" + (v ? *v : std::string("\x01"));
    }
  return id;
}

std::vector<std::string> self_repelling_keys(const Snapshot& snap, const PodInfo& pod) {
  std::vector<std::string> keys;
  for (const auto& term : pod.contract().anti_affinity)
    if (selection_of(term, pod).matches(snap, pod)) keys.push_back(term.topology_key);
  return keys;
}

PlacedPods::PlacedPods(const Snapshot& snap) : snap_(snap), node_of_(snap.pods.size(), -1) {}

void PlacedPods::move(int pod, int node, int delta) {
  ++version_;
  node_of_[pod] = delta > 0 ? node : -1;
  const PodInfo& p = snap_.pods[pod];
  for (size_t t = 0; t < terms_.size(); ++t) {
    Term& term = terms_[t];
    if (!term_matches(term, p)) continue;
    term.per_node[node] += delta;
    term.total += delta;
    for (auto& [key, counts] : term.per_domain)
      if (int d = keys_[key].domain_of_node[node]; d >= 0) counts[d] += delta;
  }
  if (owners_built_) owners_move(pod, node, delta);
  if (ports_built_) ports_move(pod, node, delta);
}

int PlacedPods::topology_key(const std::string& key) {
  auto [it, inserted] = key_index_.try_emplace(key, static_cast<int>(keys_.size()));
  if (!inserted) return it->second;
  Key k;
  k.domain_of_node.assign(snap_.nodes.size(), -1);
  std::unordered_map<std::string_view, int> ids;
  for (size_t n = 0; n < snap_.nodes.size(); ++n)
    if (const std::string* v = snap_.nodes[n].labels.find(key)) {
      auto [id, fresh] = ids.try_emplace(*v, k.domains);
      if (fresh) ++k.domains;
      k.domain_of_node[n] = id->second;
    }
  keys_.push_back(std::move(k));
  return it->second;
}

bool PlacedPods::term_matches(const Term& t, const PodInfo& p) const {
  if (t.skip_terminating && p.terminating) return false;
  for (const auto& part : t.parts)
    if (!part.matches(snap_, p)) return false;
  return true;
}

int PlacedPods::term(const std::vector<PodSelection>& parts, bool skip_terminating, const std::string& identity) {
  auto [it, inserted] = term_index_.try_emplace(identity + (skip_terminating ? "#live" : "#all"),
                                                static_cast<int>(terms_.size()));
  if (!inserted) return it->second;
  Term t;
  t.parts = parts;
  t.skip_terminating = skip_terminating;
  t.per_node.assign(snap_.nodes.size(), 0);
  for (size_t p = 0; p < node_of_.size(); ++p)
    if (node_of_[p] >= 0 && term_matches(t, snap_.pods[p])) {
      ++t.per_node[node_of_[p]];
      ++t.total;
    }
  terms_.push_back(std::move(t));
  return it->second;
}

std::vector<int32_t>& PlacedPods::domain_counts(int term, int key) {
  Term& t = terms_[term];
  for (auto& [k, counts] : t.per_domain)
    if (k == key) return counts;
  std::vector<int32_t> counts(keys_[key].domains, 0);
  for (size_t n = 0; n < t.per_node.size(); ++n)
    if (int d = keys_[key].domain_of_node[n]; d >= 0) counts[d] += t.per_node[n];
  t.per_domain.emplace_back(key, std::move(counts));
  return t.per_domain.back().second;
}

int32_t PlacedPods::count_in_domain(int term, int key, int node) {
  int d = keys_[key].domain_of_node[node];
  return d < 0 ? 0 : domain_counts(term, key)[d];
}

int64_t PlacedPods::total_with_key(int term, int key) {
  int64_t sum = 0;
  for (int32_t c : domain_counts(term, key)) sum += c;
  return sum;
}

// ---- existing pods' terms ----

namespace {

struct OwnedTerm {
  OwnerTerm kind;
  const PodAffinityTerm* term;
  size_t index;
};

std::vector<OwnedTerm> owned_terms(const PodContract& c) {
  std::vector<OwnedTerm> out;
  for (auto [kind, list] : {std::pair{OwnerTerm::RequiredAnti, &c.anti_affinity},
                            std::pair{OwnerTerm::RequiredAffinity, &c.affinity},
                            std::pair{OwnerTerm::PreferredAffinity, &c.preferred_affinity},
                            std::pair{OwnerTerm::PreferredAnti, &c.preferred_anti_affinity}})
    for (size_t i = 0; i < list->size(); ++i) out.push_back({kind, &(*list)[i], i});
  return out;
}

std::string owner_identity(const PodInfo& p, const OwnedTerm& t) {
  return term_identity(p, "owner" + std::to_string(static_cast<int>(t.kind)) + "." + std::to_string(t.index),
                       t.term->match_label_keys, t.term->mismatch_label_keys);
}

}  // namespace

void PlacedPods::owners_move(int pod, int node, int delta) {
  const PodInfo& p = snap_.pods[pod];
  if (!p.constraints) return;
  for (const auto& t : owned_terms(p.contract())) {
    auto [it, inserted] = owner_index_.try_emplace(owner_identity(p, t), static_cast<int>(owners_.size()));
    if (inserted) {
      OwnerGroup g{t.kind, t.term->weight, selection_of(*t.term, p), topology_key(t.term->topology_key), {}, 0};
      g.per_domain.assign(keys_[g.key].domains, 0);
      owners_.push_back(std::move(g));
    }
    OwnerGroup& g = owners_[it->second];
    if (int d = keys_[g.key].domain_of_node[node]; d >= 0) {
      g.per_domain[d] += delta;
      g.total += delta;
    }
  }
}

const std::vector<PlacedPods::OwnerGroup>& PlacedPods::owner_groups() {
  if (!owners_built_) {
    owners_built_ = true;
    for (size_t p = 0; p < node_of_.size(); ++p)
      if (node_of_[p] >= 0) owners_move(static_cast<int>(p), node_of_[p], +1);
  }
  return owners_;
}

bool PlacedPods::any_owner(OwnerTerm kind) {
  for (const auto& g : owner_groups())
    if (g.kind == kind && g.total > 0) return true;
  return false;
}

// ---- host ports ----

void PlacedPods::ports_move(int pod, int node, int delta) {
  const auto& ports = snap_.pods[pod].contract().host_ports;
  if (ports.empty()) return;
  auto& on = ports_on_node_[node];
  if (delta > 0) {
    for (const auto& hp : ports) on.emplace_back(pod, hp);
  } else {
    std::erase_if(on, [&](const auto& e) { return e.first == pod; });
  }
}

bool PlacedPods::port_conflict(int node, const std::vector<HostPort>& want) {
  if (!ports_built_) {
    ports_built_ = true;
    ports_on_node_.assign(snap_.nodes.size(), {});
    for (size_t p = 0; p < node_of_.size(); ++p)
      if (node_of_[p] >= 0) ports_move(static_cast<int>(p), node_of_[p], +1);
  }
  for (const auto& [pod, used] : ports_on_node_[node])
    for (const auto& w : want)
      if (w.conflicts(used)) return true;
  return false;
}

}  // namespace weft::scheduler
