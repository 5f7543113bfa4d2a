// RemovePodsViolatingNodeTaints (Deschedule): evicts pods that do not tolerate a NoSchedule
// taint of their node (PreferNoSchedule too with includePreferNoSchedule). NoExecute is the
// kubelet's to enforce. includedTaints / excludedTaints name taints as "key" or "key=value".
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"
#include "kube/taints.h"

namespace weft::descheduler::plugins::node_taints {

inline constexpr const char* kName = "RemovePodsViolatingNodeTaints";

struct Args {
  PodFilter filter;
  bool include_prefer_no_schedule = false;
  std::vector<std::string> excluded_taints;
  std::optional<std::vector<std::string>> included_taints;   // absent: every taint; [] : none
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

// The first taint of `node` the args consider that the pod does not tolerate.
std::optional<kube::Taint> violated_taint(const PodInfo& pod, const NodeInfo& node, const Args& args);

class Plugin : public framework::DeschedulePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::node_taints
