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

// A pod as upstream's plugins list it, through a filter wrapping the evictor's Filter and
// PreEvictionFilter: nodeFit is judged on the cluster as it is when listed, before the
// plugin evicts anything, so room its own evictions free lets no later pod go.
struct Listed {
  int pod = -1;
  std::string refused;   // the PreEvictionFilter's reason when listed; "" none
};

// The pods of `pods` the evictor's Filter lets through, in order, each with its
// listing_filter verdict now. A plugin lists every node it acts on before it evicts.
std::vector<Listed> list_pods(const framework::Evictor& evictor, const std::vector<int>& pods);

// Evicts a listed pod; one refused when listed is not asked again: its refusal is its skip.
// Returns "" when evicted, else the reason.
std::string evict_listed(framework::Handle& handle, const Listed& listed, framework::EvictionRequest request);

enum class Stop { None, Node, Total };

// Asks the evictor for each pod in order; returns Node when the node's limit stopped it,
// Total when the cycle's did (upstream's EvictionNodeLimitError / EvictionTotalLimitError).
Stop evict_in_order(framework::Handle& handle, int node, const std::vector<Listed>& pods, const std::string& plugin,
                    const std::function<std::string(int)>& reason);

// Upstream's per-node Deschedule loop: `breaking(node)` gives the node's pods that break
// the plugin's rule, in eviction order; every node is listed (list_pods) before any pod is
// evicted, then each node's pods go in order until the node's or the cycle's limit.
void evict_per_node(framework::Handle& handle, const std::vector<int>& nodes,
                    const std::function<std::vector<int>(int node)>& breaking, const std::string& plugin,
                    const std::function<std::string(int)>& reason);

}  // namespace weft::descheduler::plugins
