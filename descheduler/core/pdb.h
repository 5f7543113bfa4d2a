// PodDisruptionBudgets as the planner needs them: which pods a budget covers and how many
// of them may be disrupted now. A plan never takes more pods from a budget than that.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/selector.h"

namespace weft::descheduler {

struct IntOrPercent {
  int value = 0;
  bool percent = false;
  // Scaled against `total`, rounding up (as the disruption controller does).
  int scaled(int total) const;
};

struct PdbInfo {
  std::string ns, name;
  // policy/v1: a null selector covers no pod, an empty one every pod of the namespace.
  std::optional<kube::LabelSelector> selector;
  std::optional<int> status_allowed;   // status.disruptionsAllowed when the object has it
  std::optional<IntOrPercent> min_available, max_unavailable;
  // Filled when the cluster is finished: covered pods, of them running, and the budget.
  int expected = 0, healthy = 0;
  int disruptions_allowed = 0;

  std::string key() const { return ns + "/" + name; }
  // status.disruptionsAllowed, else from the spec over the covered pods: minAvailable N
  // allows healthy - N, maxUnavailable M allows healthy - (expected - M); neither allows
  // every healthy pod. Never negative.
  int compute_allowed() const;
};

// A policy/v1 (or v1beta1) PodDisruptionBudget; errors name the field.
Result<PdbInfo> parse_pdb(const nlohmann::json& object);

}  // namespace weft::descheduler
