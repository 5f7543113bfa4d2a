// One member cluster during a dispatch cycle: its nodes with what is already used taken
// off their allocatable (built once per cycle), on which the single-cluster core decides
// whether a gang really fits; accepted placements are taken off the same nodes, and taken
// back ones returned, so every later decision sees every earlier one.
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/core/config.h"
#include "scheduler/core/session.h"
#include "scheduler/global/core/objects.h"

namespace weft::scheduler::global {

struct Placement {
  std::vector<std::pair<int, kube::ResourceList>> nodes;   // node index, request
};

struct FitResult {
  bool fits = false;
  Placement placement;
  std::string reason;               // the core's, when it does not fit
};

class MemberState {
 public:
  // `member` holds the member's Nodes, Pods and HyperNodes; bound, non-terminal pods use
  // their nodes. Only the actions and plugins that decide feasibility are used.
  MemberState(std::string name, const Snapshot& member);

  const std::string& name() const { return name_; }
  // Free capacity summed over nodes that take new work (ready, schedulable, no hard taint).
  const kube::ResourceList& free() const { return free_; }
  // Capacity those nodes have in all (for the queues' deserved shares).
  const kube::ResourceList& usable() const { return usable_; }

  FitResult fit(const Gang& gang);
  void take(const Placement& p);
  void give_back(const Placement& p);
  // The reason `signature` was last found not to fit, while nothing was given back since.
  const std::string* known_misfit(const std::string& signature) const;
  int sessions() const { return sessions_; }
  int node_index(const std::string& node) const {   // -1 when the member has no such node
    auto it = node_index_.find(node);
    return it == node_index_.end() ? -1 : it->second;
  }

 private:
  std::string name_;
  Snapshot snap_;                   // nodes with used capacity removed; no pods
  Config config_;
  kube::ResourceList free_, usable_;
  std::vector<bool> takes_work_;
  std::unordered_map<std::string, int> node_index_;
  std::map<std::string, std::string> misfits_;
  int sessions_ = 0;
};

}  // namespace weft::scheduler::global
