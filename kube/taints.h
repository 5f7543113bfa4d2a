// Taints and tolerations with the API's matching rules (all effects and operators).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube {

struct Taint {
  std::string key, value, effect;  // effect: NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string key, op = "Equal", value, effect;  // empty key + Exists tolerates everything
  std::optional<int64_t> toleration_seconds;
  bool tolerates(const Taint& taint) const;
};

Result<std::vector<Taint>> taints_of_node(const nlohmann::json& node);            // spec.taints
Result<std::vector<Toleration>> tolerations_of_pod(const nlohmann::json& pod);   // spec.tolerations

bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint);
// The first taint with effect NoSchedule or NoExecute that is not tolerated, if any:
// what keeps a pod off a node at scheduling time.
std::optional<Taint> first_untolerated_hard_taint(const std::vector<Taint>& taints,
                                                  const std::vector<Toleration>& tolerations);

}  // namespace weft::kube
