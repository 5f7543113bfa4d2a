// RemovePodsViolatingInterPodAntiAffinity (Deschedule): evicts pods whose own required
// inter-pod anti-affinity is broken where they run — a pod its terms select is in the
// same domain of the term's topologyKey. The rule is the scheduler's (its InterPodAffinity
// filter, asked through the evictor's other_pod_blockers with the pod off its node), so
// every pod the scheduler counts counts here, and a pod evicted earlier in the cycle no
// longer does: of two pods repelling each other one goes. Candidates per node in
// upstream's order (plugins::evicted_before).
#pragma once

#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"

namespace weft::descheduler::plugins::inter_pod_anti_affinity {

inline constexpr const char* kName = "RemovePodsViolatingInterPodAntiAffinity";

struct Args {
  PodFilter filter;   // namespaces, labelSelector
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

class Plugin : public framework::DeschedulePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status deschedule(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::inter_pod_anti_affinity
