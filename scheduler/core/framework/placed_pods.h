// Where every pod is in one session, bound or tentatively placed, and the counts the
// pod-level filters and scores ask of it (inter-pod affinity, topology spread, host
// ports), kept up to date on every assume and release so a check is a lookup, never a
// scan of all pods. Each index is built the first time it is asked for (pods that use
// none of these features pay for none of them), then maintained incrementally.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

// Pods selected by namespace and labels, as an affinity term or a spread constraint selects them.
struct PodSelection {
  std::optional<kube::LabelSelector> selector;              // absent: no pod
  std::vector<kube::Requirement> label_keys;                // from matchLabelKeys / mismatchLabelKeys
  std::vector<std::string> namespaces;                      // any of these...
  std::optional<kube::LabelSelector> namespace_selector;    // ...or a namespace whose labels match
  bool matches(const Snapshot& snap, const PodInfo& pod) const;
};

// A term as the pod that carries it means it: its selector with matchLabelKeys and
// mismatchLabelKeys merged, its namespaces defaulted to the pod's own.
PodSelection selection_of(const PodAffinityTerm& term, const PodInfo& owner);

// What identifies a term of a pod (equal for pods of one template in one namespace with
// equal values of the labels the term merges in): `tag` names the term within the template.
std::string term_identity(const PodInfo& owner, const std::string& tag, const std::vector<std::string>& match_keys,
                          const std::vector<std::string>& mismatch_keys);

// The topology keys on which pods like this one repel their own kind (a required
// anti-affinity term the pod itself matches): at most one of them per domain of each.
std::vector<std::string> self_repelling_keys(const Snapshot& snap, const PodInfo& pod);

// The labels of a namespace: its Namespace object's when the snapshot has one, else the
// label every namespace carries (kubernetes.io/metadata.name).
kube::Labels namespace_labels(const Snapshot& snap, const std::string& name);

// Pods with an affinity term toward others (the existing pods' side of inter-pod affinity).
enum class OwnerTerm { RequiredAnti, RequiredAffinity, PreferredAffinity, PreferredAnti };

class PlacedPods {
 public:
  explicit PlacedPods(const Snapshot& snap);

  void add(int pod, int node) { move(pod, node, +1); }
  void remove(int pod, int node) { move(pod, node, -1); }
  uint64_t version() const { return version_; }   // changes on every add and remove
  int node_of(int pod) const { return node_of_[pod]; }

  // Topology domains of a label key: per node its domain (-1: the node lacks the label).
  int topology_key(const std::string& key);
  int domain(int key, int node) const { return keys_[key].domain_of_node[node]; }
  const std::vector<int>& domains_of_nodes(int key) const { return keys_[key].domain_of_node; }
  int domain_count(int key) const { return keys_[key].domains; }

  // Placed pods that match every part (a conjunction); `skip_terminating` leaves pods
  // being deleted out (topology spread counts them out, affinity in).
  int term(const std::vector<PodSelection>& parts, bool skip_terminating, const std::string& identity);
  int32_t count_on_node(int term, int node) const { return terms_[term].per_node[node]; }
  // Matching pods in the node's domain of `key` (0 when the node lacks the label).
  int32_t count_in_domain(int term, int key, int node);
  // The same for every domain of `key` at once (valid until the next term or key is added).
  const std::vector<int32_t>& counts_by_domain(int term, int key) { return domain_counts(term, key); }
  int64_t total(int term) const { return terms_[term].total; }
  // Matching pods on nodes that have the label `key`.
  int64_t total_with_key(int term, int key);

  // Existing pods' terms: groups of equal terms of placed pods, per domain of their key.
  struct OwnerGroup {
    OwnerTerm kind;
    int32_t weight;
    PodSelection selection;
    int key;
    std::vector<int32_t> per_domain;
    int64_t total = 0;
  };
  const std::vector<OwnerGroup>& owner_groups();
  bool any_owner(OwnerTerm kind);

  // Host ports in use on the node.
  bool port_conflict(int node, const std::vector<HostPort>& want);

 private:
  struct Key {
    std::vector<int> domain_of_node;
    int domains = 0;
  };
  struct Term {
    std::vector<PodSelection> parts;
    bool skip_terminating = false;
    std::vector<int32_t> per_node;
    std::vector<std::pair<int, std::vector<int32_t>>> per_domain;   // (key, counts)
    int64_t total = 0;
  };
  void move(int pod, int node, int delta);
  bool term_matches(const Term& t, const PodInfo& p) const;
  std::vector<int32_t>& domain_counts(int term, int key);
  void owners_move(int pod, int node, int delta);
  void ports_move(int pod, int node, int delta);

  const Snapshot& snap_;
  std::vector<int> node_of_;
  uint64_t version_ = 0;
  std::vector<Key> keys_;
  std::unordered_map<std::string, int> key_index_;
  std::vector<Term> terms_;
  std::unordered_map<std::string, int> term_index_;
  bool owners_built_ = false;
  std::vector<OwnerGroup> owners_;
  std::unordered_map<std::string, int> owner_index_;
  bool ports_built_ = false;
  std::vector<std::vector<std::pair<int, HostPort>>> ports_on_node_;
};

}  // namespace weft::scheduler
