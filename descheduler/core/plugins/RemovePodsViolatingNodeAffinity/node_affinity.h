// RemovePodsViolatingNodeAffinity (Deschedule): with nodeAffinityType
// requiredDuringSchedulingIgnoredDuringExecution, evicts pods whose required node affinity
// (with their nodeSelector) no longer matches their node, when another node would take them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"

namespace weft::descheduler::plugins::node_affinity {

inline constexpr const char* kName = "RemovePodsViolatingNodeAffinity";
inline constexpr const char* kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
inline constexpr const char* kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";

struct Args {
  PodFilter filter;
  std::vector<std::string> node_affinity_type;   // required; each kRequired (kPreferred is refused)
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

// The pod has required node affinity and its node no longer matches it (or its nodeSelector).
bool violates_required(const PodInfo& pod, const NodeInfo& node);

class Plugin : public framework::DeschedulePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::node_affinity
