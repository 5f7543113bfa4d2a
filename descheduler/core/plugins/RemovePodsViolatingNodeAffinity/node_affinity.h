// RemovePodsViolatingNodeAffinity (Deschedule), once per nodeAffinityType listed:
// requiredDuringSchedulingIgnoredDuringExecution evicts pods whose required node affinity
// (with their nodeSelector) no longer matches their node; preferredDuringScheduling-
// IgnoredDuringExecution evicts pods for which some node of the profile weighs more by
// their preferred terms (the scheduler's sum, scheduler::preferred_node_weight) than their
// own. Either only when another node would take them (fits_other_node).
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
  std::vector<std::string> node_affinity_type;   // required; each kRequired or kPreferred
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

// The pod has required node affinity and its node no longer matches it (or its nodeSelector).
bool violates_required(const PodInfo& pod, const NodeInfo& node);

// Some node of `nodes` weighs more than the pod's own by its preferred node affinity.
bool better_preferred_node(const Cluster& cluster, const PodInfo& pod, const std::vector<int>& nodes);

class Plugin : public framework::DeschedulePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::node_affinity
