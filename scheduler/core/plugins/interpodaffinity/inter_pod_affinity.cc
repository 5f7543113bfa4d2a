#include "scheduler/core/plugins/interpodaffinity/inter_pod_affinity.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

namespace weft::scheduler {
namespace {

bool any_pod(const Snapshot& snap, bool (*has)(const PodContract&)) {
  return std::any_of(snap.pods.begin(), snap.pods.end(), [&](const PodInfo& p) { return p.constraints && has(p.contract()); });
}

std::string identity(const PodInfo& p, const char* kind, size_t index, const PodAffinityTerm& t) {
  return term_identity(p, std::string(kind) + "." + std::to_string(index), t.match_label_keys, t.mismatch_label_keys);
}

struct KeyedTerm {
  int term, key;
  int32_t weight;
};

// The incoming pod's terms as counted placements.
struct IncomingTerms {
  std::vector<KeyedTerm> anti;            // required anti-affinity, one per term
  int affinity = -1;                      // every required affinity term at once
  std::vector<int> affinity_keys;
  bool self_affine = false;               // the pod matches all its own affinity terms
  std::vector<KeyedTerm> preferred;       // weight < 0: anti-affinity
};

class State {
 public:
  explicit State(Session& ssn) : ssn_(ssn), placed_(ssn.cluster.placed()) {}

  // In kube-scheduler's order: the pod's affinity, its anti-affinity, then the placed
  // pods' anti-affinity toward it. Called for every node: the counts it reads are
  // gathered once per pod and placement (prepared), so a node costs array lookups.
  std::string filter(int pod, int node) {
    const Prepared& p = prepare(pod);
    bool found = true;
    for (const auto& a : p.affinity) {
      const int d = a.domain_of[node];
      if (d < 0) return kAffinityReason;
      if (a.per_domain[d] <= 0) found = false;
    }
    if (!found && !p.first_of_group) return kAffinityReason;
    for (const auto& a : p.anti)
      if (int d = a.domain_of[node]; d >= 0 && a.per_domain[d] > 0) return kAntiAffinityReason;
    for (const auto& a : p.existing_anti)
      if (int d = a.domain_of[node]; d >= 0 && a.per_domain[d] > 0) return kExistingAntiAffinityReason;
    return "";
  }

  // Each preferred term and each matching owner group adds weight x its count in the
  // node's domain; the counts are looked up per term, then the node loop only indexes.
  void score(int pod, const std::vector<int>& nodes, std::vector<double>& scores, double weight) {
    const IncomingTerms& t = terms_of(pod);
    counted_.clear();
    for (const auto& k : t.preferred) (void)placed_.counts_by_domain(k.term, k.key);   // all built before any is held
    for (const auto& k : t.preferred) counted_.push_back({k.key, &placed_.counts_by_domain(k.term, k.key), double(k.weight)});
    const auto& groups = placed_.owner_groups();
    for (int g : matching_owners(pod)) {
      const auto& group = groups[g];
      if (group.kind == OwnerTerm::RequiredAnti) continue;
      const double w = group.kind == OwnerTerm::RequiredAffinity ? 1
                       : group.kind == OwnerTerm::PreferredAnti  ? -group.weight
                                                                 : group.weight;
      counted_.push_back({group.key, &group.per_domain, w});
    }
    if (counted_.empty()) return;
    raw_.assign(nodes.size(), 0);
    for (const auto& c : counted_) {   // in the order above, so each node sums as before
      const int* domain_of = placed_.domains_of_nodes(c.key).data();
      const int32_t* per_domain = c.per_domain->data();
      for (size_t i = 0; i < nodes.size(); ++i)
        if (int d = domain_of[nodes[i]]; d >= 0) raw_[i] += c.weight * per_domain[d];
    }
    auto [lo, hi] = std::minmax_element(raw_.begin(), raw_.end());
    if (*hi - *lo <= 0) return;
    for (size_t i = 0; i < nodes.size(); ++i) scores[i] += weight * 100.0 * (raw_[i] - *lo) / (*hi - *lo);
  }

 private:
  // Counts in one key's domains: domain_of[node] indexes per_domain (-1: the node lacks the key).
  // Raw buffers, which stay put while the index's containers grow.
  struct Lookup {
    const int* domain_of;
    const int32_t* per_domain;
  };
  struct Prepared {
    std::vector<Lookup> affinity;        // each key of the required affinity terms
    bool first_of_group = false;         // self-affine and no pod anywhere matches yet
    std::vector<Lookup> anti, existing_anti;
  };

  const Prepared& prepare(int pod) {
    const auto& groups = placed_.owner_groups();
    if (pod == prepared_pod_ && placed_.version() == prepared_version_ && groups.size() == prepared_groups_)
      return prepared_;
    prepared_pod_ = pod;
    prepared_version_ = placed_.version();
    prepared_groups_ = groups.size();
    Prepared& p = prepared_;
    p = {};
    const PodContract& c = ssn_.snap.pods[pod].contract();
    if (!c.affinity.empty() || !c.anti_affinity.empty()) {
      const IncomingTerms& t = terms_of(pod);
      for (const auto& a : t.anti) (void)placed_.counts_by_domain(a.term, a.key);   // all built before any is held
      for (int key : t.affinity_keys) (void)placed_.counts_by_domain(t.affinity, key);
      p.first_of_group = t.self_affine;
      for (int key : t.affinity_keys) {
        p.affinity.push_back(lookup(key, placed_.counts_by_domain(t.affinity, key)));
        p.first_of_group = p.first_of_group && placed_.total_with_key(t.affinity, key) == 0;
      }
      for (const auto& a : t.anti) p.anti.push_back(lookup(a.key, placed_.counts_by_domain(a.term, a.key)));
    }
    for (int g : matching_owners(pod)) {
      const auto& group = groups[g];
      if (group.kind == OwnerTerm::RequiredAnti && group.total > 0) p.existing_anti.push_back(lookup(group.key, group.per_domain));
    }
    return p;
  }

  Lookup lookup(int key, const std::vector<int32_t>& per_domain) const {
    return {placed_.domains_of_nodes(key).data(), per_domain.data()};
  }

  const IncomingTerms& terms_of(int pod) {
    auto [it, inserted] = incoming_.try_emplace(pod);
    if (!inserted) return it->second;
    const PodInfo& p = ssn_.snap.pods[pod];
    const PodContract& c = p.contract();
    IncomingTerms& t = it->second;
    for (size_t i = 0; i < c.anti_affinity.size(); ++i) {
      const auto& term = c.anti_affinity[i];
      t.anti.push_back({placed_.term({selection_of(term, p)}, false, identity(p, "anti", i, term)),
                        placed_.topology_key(term.topology_key), 0});
    }
    if (!c.affinity.empty()) {
      std::vector<PodSelection> parts;
      std::string id;
      t.self_affine = true;
      for (size_t i = 0; i < c.affinity.size(); ++i) {
        parts.push_back(selection_of(c.affinity[i], p));
        t.self_affine = t.self_affine && parts.back().matches(ssn_.snap, p);
        id += identity(p, "affinity", i, c.affinity[i]) + "|";
        int key = placed_.topology_key(c.affinity[i].topology_key);
        if (std::find(t.affinity_keys.begin(), t.affinity_keys.end(), key) == t.affinity_keys.end())
          t.affinity_keys.push_back(key);
      }
      t.affinity = placed_.term(parts, false, id);
    }
    for (auto [kind, list, sign] : {std::tuple{"preferred", &c.preferred_affinity, 1},
                                    std::tuple{"preferred-anti", &c.preferred_anti_affinity, -1}})
      for (size_t i = 0; i < list->size(); ++i) {
        const auto& term = (*list)[i];
        t.preferred.push_back({placed_.term({selection_of(term, p)}, false, identity(p, kind, i, term)),
                               placed_.topology_key(term.topology_key), sign * term.weight});
      }
    return t;
  }

  // Owner groups whose term selects the pod (recomputed when new groups appear).
  const std::vector<int>& matching_owners(int pod) {
    const auto& groups = placed_.owner_groups();
    if (pod != owners_pod_ || groups.size() != owners_seen_) {
      owners_pod_ = pod;
      owners_seen_ = groups.size();
      owners_match_.clear();
      for (size_t g = 0; g < groups.size(); ++g)
        if (groups[g].selection.matches(ssn_.snap, ssn_.snap.pods[pod])) owners_match_.push_back(static_cast<int>(g));
    }
    return owners_match_;
  }

  Session& ssn_;
  PlacedPods& placed_;
  std::unordered_map<int, IncomingTerms> incoming_;
  int owners_pod_ = -1;
  size_t owners_seen_ = 0;
  std::vector<int> owners_match_;
  int prepared_pod_ = -1;
  uint64_t prepared_version_ = 0;
  size_t prepared_groups_ = 0;
  Prepared prepared_;
  std::vector<double> raw_;
  struct Counted {
    int key;
    const std::vector<int32_t>* per_domain;
    double weight;
  };
  std::vector<Counted> counted_;
};

}  // namespace

void add_inter_pod_affinity_filter(Session& ssn, const PluginOption& option) {
  if (!any_pod(ssn.snap, [](const PodContract& c) { return !c.affinity.empty() || !c.anti_affinity.empty(); })) return;
  auto state = std::make_shared<State>(ssn);
  ssn.add_dynamic_predicate(option, [state](int pod, int node) { return state->filter(pod, node); });
}

void add_inter_pod_affinity_score(Session& ssn, const PluginOption& option, double weight) {
  if (weight == 0) return;
  if (!any_pod(ssn.snap, [](const PodContract& c) {
        return !c.preferred_affinity.empty() || !c.preferred_anti_affinity.empty() || !c.affinity.empty();
      }))
    return;
  auto state = std::make_shared<State>(ssn);
  ssn.add_batch_node_order(option, [state, weight](int pod, const std::vector<int>& nodes, std::vector<double>& scores) {
    state->score(pod, nodes, scores, weight);
  });
}

}  // namespace weft::scheduler
