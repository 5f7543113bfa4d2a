// RemovePodsHavingTooManyRestarts (Deschedule): evicts pods whose containers restarted at
// least podRestartThreshold times in all, most restarts first on each node.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"

namespace weft::descheduler::plugins::too_many_restarts {

inline constexpr const char* kName = "RemovePodsHavingTooManyRestarts";

struct Args {
  PodFilter filter;                  // namespaces, labelSelector
  int32_t pod_restart_threshold = 0;   // required, at least 1
  bool including_init_containers = false;
  std::vector<std::string> states;   // Running (phase) or CrashLoopBackOff (a container waiting reason)
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

int32_t total_restarts(const PodInfo& pod, bool including_init);
bool qualifies(const PodInfo& pod, const Args& args);

class Plugin : public framework::DeschedulePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::too_many_restarts
