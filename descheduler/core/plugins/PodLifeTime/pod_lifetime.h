// PodLifeTime (Deschedule): evicts pods older than maxPodLifeTimeSeconds and/or in given
// states, conditions or exit codes, oldest first across the nodes. Every criterion given
// must hold (AND); within one criterion any entry matches (OR).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"

namespace weft::descheduler::plugins::pod_lifetime {

inline constexpr const char* kName = "PodLifeTime";

struct ConditionFilter {
  std::string type, status, reason;   // empty: not checked
  std::optional<int64_t> min_time_since_last_transition_seconds;
};

struct Args {
  PodFilter filter;                            // namespaces, labelSelector
  std::vector<std::string> include_owner_kinds, exclude_owner_kinds;
  std::optional<int64_t> max_pod_lifetime_seconds;
  std::vector<std::string> states;             // phase, status.reason, container waiting/terminated reason
  std::vector<ConditionFilter> conditions;
  std::vector<int32_t> exit_codes;
  bool including_init_containers = false;
  bool including_ephemeral_containers = false;
};

// Validation as upstream: at least one of maxPodLifeTimeSeconds, states, conditions, exitCodes.
Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

bool qualifies(const PodInfo& pod, const Args& args, TimePoint now);

class Plugin : public framework::DeschedulePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::pod_lifetime
