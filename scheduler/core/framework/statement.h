// A statement: tentative placements and evictions in one session, committed together
// (bindings, evictions and their events go out) or discarded (the session's accounting
// is restored in reverse order), as Volcano's framework.Statement.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace weft::scheduler {

class Session;

class Statement {
 public:
  explicit Statement(Session& ssn) : ssn_(ssn) {}

  // The pod binds to the node.
  void allocate(int pod, int node);
  // The pod's room is held on the node (freed by evictions); it binds in a later cycle.
  void pipeline(int pod, int node);
  // The pod leaves its node; `kind` is the event reason ("Preempted", "Reclaimed").
  void evict(int pod, const std::string& kind, const std::string& reason);

  void commit();
  void discard();
  // Appends the other statement's operations (it is left empty).
  void merge(Statement& other);

  bool empty() const { return ops_.empty(); }
  bool has_evictions() const;
  size_t allocated() const;
  // (pods evicted, the highest priority among them): the price of this plan.
  std::pair<size_t, int> eviction_cost() const;
  std::vector<int> evicted_pods() const;
  bool evicts(int pod) const;

 private:
  enum class Op { Allocate, Pipeline, Evict };
  struct Entry {
    Op op;
    int pod, node;
    std::string kind, reason;
  };
  Session& ssn_;
  std::vector<Entry> ops_;
};

}  // namespace weft::scheduler
