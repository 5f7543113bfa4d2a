// What most upstream strategies share: the namespaces and labelSelector args that narrow
// their candidates, owner kinds, and evicting a node's candidates in order through the
// evictor until the node's (or the cycle's) limit is reached.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "descheduler/core/cluster.h"
#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/args.h"

namespace weft::descheduler::plugins {

struct PodFilter {
  args::Namespaces namespaces;
  std::optional<kube::LabelSelector> labels;
  bool matches(const PodInfo& pod) const;
};

// args.namespaces and args.labelSelector (either may be absent).
Result<PodFilter> read_pod_filter(const args::Ctx& c, const nlohmann::json& args, const std::string& path,
                                  bool with_labels = true);

bool owned_by_any(const PodInfo& pod, const std::vector<std::string>& kinds);

// The live pods then the terminal pods bound to `node` (upstream lists both).
std::vector<int> all_pods_on(const Cluster& cluster, int node);

enum class Stop { None, Node, Total };

// Asks the evictor for each pod in order; returns Node when the node's limit stopped it,
// Total when the cycle's did (upstream's EvictionNodeLimitError / EvictionTotalLimitError).
Stop evict_in_order(framework::Handle& handle, int node, const std::vector<int>& pods, const std::string& plugin,
                    const std::function<std::string(int)>& reason);

}  // namespace weft::descheduler::plugins
