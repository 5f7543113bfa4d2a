// Writes one cycle's decisions to the control plane: a dispatched binding gets
// spec.clusters and spec.suspension.scheduling=false, a taken-back one clusters [] and
// scheduling=true (Karmada then removes its work from the member); each gets a
// `Dispatched` condition in status.conditions and an Event, only when they change.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"
#include "kube/client/events.h"
#include "scheduler/global/app/global_watch.h"
#include "scheduler/global/core/dispatch.h"

namespace weft::scheduler::global {

struct ApplySummary {
  int dispatched = 0, preempted = 0, conditions = 0, errors = 0;
};

class DecisionWriter {
 public:
  DecisionWriter(kube::Client& client, const std::string& host);
  // `bindings`: the ResourceBindings the decisions were made on, by "ns/name".
  ApplySummary apply(const GlobalDecisions& d, const std::map<std::string, nlohmann::json>& bindings);
  // Shows the bindings as this process wrote them until the watch catches up, so a
  // cycle never dispatches the same binding twice.
  void overlay(std::vector<WatchedObject>& objects);

 private:
  Status write_condition(const nlohmann::json& binding, const BindingDecision& d);

  kube::Client& client_;
  kube::EventRecorder events_;
  std::map<std::string, nlohmann::json> written_;
};

}  // namespace weft::scheduler::global
