// RemoveFailedPods (Deschedule): evicts pods in phase Failed, optionally only those failed
// for given reasons or exit codes, older than minPodLifetimeSeconds, not owned by
// excludeOwnerKinds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"

namespace weft::descheduler::plugins::remove_failed_pods {

inline constexpr const char* kName = "RemoveFailedPods";

struct Args {
  PodFilter filter;                            // namespaces, labelSelector
  std::vector<std::string> exclude_owner_kinds;
  std::optional<int64_t> min_pod_lifetime_seconds = 3600;   // upstream's default
  std::vector<std::string> reasons;            // any matches: container waiting/terminated reason, or status.reason
  std::vector<int32_t> exit_codes;             // any matches: a terminated container's exit code
  bool including_init_containers = false;
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

// "" when the failed pod qualifies, else why not (for tests and logs).
std::string mismatch(const PodInfo& pod, const Args& args, TimePoint now);

class Plugin : public framework::DeschedulePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::remove_failed_pods
