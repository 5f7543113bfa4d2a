// RemovePodsViolatingTopologySpreadConstraint (Balance): per namespace and per distinct
// topology spread constraint of its pods (DoNotSchedule, and ScheduleAnyway when listed),
// counts the matching pods per domain of the topologyKey over the profile's nodes and,
// where two domains differ by more than maxSkew, evicts pods from the largest domains
// toward the ideal average as upstream's balanceDomains does. As upstream, only pods the
// args and the evictor's Filter allow are listed (and so counted). Which pods a constraint
// selects and which nodes its policies include is the scheduler's rule
// (scheduler/core/query/spread.h: selector with matchLabelKeys in the owner's namespace,
// no pod being deleted, nodeAffinityPolicy / nodeTaintsPolicy); as upstream, the policies
// choose the domains and the target nodes, while a listed pod on any node with the key
// counts in its node's domain.
// With topologyBalanceNodeFit (default) a pod is taken only if the scheduler's fit, room
// included, takes it on some other node of a domain below the average.
#pragma once

#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"

namespace weft::descheduler::plugins::topology_spread {

inline constexpr const char* kName = "RemovePodsViolatingTopologySpreadConstraint";
inline constexpr const char* kDoNotSchedule = "DoNotSchedule";
inline constexpr const char* kScheduleAnyway = "ScheduleAnyway";

struct Args {
  PodFilter filter;                       // namespaces, labelSelector
  bool hard = true, soft = false;         // constraints: DoNotSchedule (default), ScheduleAnyway
  bool topology_balance_node_fit = true;
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

class Plugin : public framework::BalancePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status balance(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::topology_spread
