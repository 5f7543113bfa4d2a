// What the disruption controller computes for a PodDisruptionBudget, done on demand:
// expected pods (those the selector matches), desired healthy (from minAvailable or
// maxUnavailable, integers or percentages rounded up, as the real controller does),
// currently healthy (Running, Ready, not being deleted) and disruptions allowed.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube_lite {

struct DisruptionStatus {
  int expected_pods = 0;
  int desired_healthy = 0;
  int current_healthy = 0;
  int disruptions_allowed = 0;
  nlohmann::json to_status(int64_t observed_generation) const;
};

// Does the budget's selector select this pod (same namespace is the caller's job)?
// In policy/v1 an empty selector matches every pod of the namespace.
Result<bool> budget_selects(const nlohmann::json& pdb, const nlohmann::json& pod);
bool pod_healthy(const nlohmann::json& pod);
// "3", 3, "50%": an integer or a percentage of total, percentages rounded up.
Result<int> scaled_value(const nlohmann::json& value, int total);
Result<DisruptionStatus> compute_disruption(const nlohmann::json& pdb, const std::vector<nlohmann::json>& pods);

}  // namespace weft::kube_lite
