// HighNodeUtilization (Balance): nodes whose requested resources are all at or below
// `thresholds` are underutilized; their pods are evicted, least used node first, while the
// other schedulable nodes still have room (up to their allocatable) for what was evicted,
// so the scheduler (with MostAllocated scoring) packs them and empties nodes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"

namespace weft::descheduler::plugins::high_node_utilization {

inline constexpr const char* kName = "HighNodeUtilization";

struct Args {
  std::map<std::string, double> thresholds;   // resource -> percent (cpu, memory, pods, extended)
  int number_of_nodes = 0;                    // act only when more underutilized nodes than this
  bool only_thresholding_resources = false;   // evictionModes: [OnlyThresholdingResources]
  std::vector<std::string> exclude_namespaces;   // evictableNamespaces.exclude
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

// Requested share of the node in percent: pods over allocatable pods (110 when not given),
// any other resource its pods' requests over allocatable.
double usage_percent(const NodeInfo& node, const std::string& resource);

class Plugin : public framework::BalancePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status balance(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::high_node_utilization
