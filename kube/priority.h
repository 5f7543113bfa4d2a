// The two PriorityClasses every cluster has without objects for them (the API server's
// built-in system classes), and the highest priority a user's class or threshold may take.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace weft::kube {

inline constexpr int32_t kSystemClusterCriticalPriority = 2000000000;   // also the highest user priority
inline constexpr int32_t kSystemNodeCriticalPriority = 2000001000;

inline std::optional<int32_t> builtin_priority(std::string_view class_name) {
  if (class_name == "system-cluster-critical") return kSystemClusterCriticalPriority;
  if (class_name == "system-node-critical") return kSystemNodeCriticalPriority;
  return std::nullopt;
}

}  // namespace weft::kube
