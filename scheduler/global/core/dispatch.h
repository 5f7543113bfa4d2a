// One dispatch cycle over the control plane: every suspended ResourceBinding, in queue
// order (queue priority, then the queue furthest below its deserved share) and priority
// order inside a queue, either goes whole to one member cluster where the single-cluster
// core places all its pods on the member's own nodes, or stays suspended with a reason.
// A binding blocked by its queue's capability may take back lower-priority bindings of
// the same queue, and one that fits nowhere while its queue is below its deserved share
// may take back what reclaimable queues hold beyond theirs; either only when that frees
// enough to place it. No I/O.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/global/core/objects.h"

namespace weft::scheduler::global {

struct BindingDecision {
  enum class Action { Keep, Dispatch, Suspend, Preempt };
  std::string key, queue;
  Action action = Action::Keep;     // Keep: dispatched before and left as it is
  bool suspended = false;           // as it stands after the cycle
  std::vector<TargetCluster> clusters;
  std::string reason;               // why it stays suspended / was taken back / where it went
  std::string reason_code;          // CamelCase, for the condition: Dispatched, QueueCapability, NoClusterFit, ...
};

struct QueueReport {
  std::string name;
  kube::ResourceList allocated, deserved;
};

struct DispatchStats {
  int sessions = 0;                 // run_session calls
  int dispatched = 0, suspended = 0, preempted = 0;
};

struct GlobalDecisions {
  std::vector<BindingDecision> bindings;   // one per binding, sorted by key
  std::vector<QueueReport> queues;
  std::vector<std::string> dispatch_order;   // keys of the dispatched bindings, as decided
  DispatchStats stats;
};

GlobalDecisions dispatch(const GlobalState& state);

// {"bindings": [...], "queues": [...]} as `weft-scheduler global simulate` prints it.
nlohmann::json decisions_json(const GlobalDecisions& d);

}  // namespace weft::scheduler::global
