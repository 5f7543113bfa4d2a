// nodeorder: least-requested, most-requested and balanced-resource scores on cpu and
// memory (with the pod placed), tainttoleration (fewer untolerated PreferNoSchedule
// taints score higher), nodeaffinity (preferred node affinity: the weights of the terms
// the node matches, normalized to 0..100), podaffinity (InterPodAffinity's score) and
// podtopologyspread (PodTopologySpread's ScheduleAnyway score), each times its weight;
// absent weights are Volcano's defaults.
#include "scheduler/core/plugins/nodeorder/nodeorder.h"

#include <algorithm>
#include <cmath>

#include "scheduler/core/plugins/interpodaffinity/inter_pod_affinity.h"
#include "scheduler/core/plugins/plugin_makers.h"
#include "scheduler/core/plugins/podtopologyspread/pod_topology_spread.h"
#include "scheduler/core/preferred_node.h"

namespace weft::scheduler {
namespace {

struct Weights {
  double least_requested = 1, most_requested = 0, balanced_resource = 1, taint_toleration = 3, node_affinity = 2,
         pod_affinity = 2, pod_topology_spread = 2;
};

// Preferred node affinity: the summed weights of the terms the node matches, times 100
// over the best candidate's.
void add_node_affinity_score(Session& ssn, const PluginOption& opt, double weight) {
  const auto& pods = ssn.snap.pods;
  if (weight == 0 ||
      std::none_of(pods.begin(), pods.end(), [](const PodInfo& p) { return !p.contract().preferred_node.empty(); }))
    return;
  ssn.add_batch_node_order(opt, [&ssn, weight](int pod, const std::vector<int>& nodes, std::vector<double>& scores) {
    const auto& terms = ssn.snap.pods[pod].contract().preferred_node;
    if (terms.empty()) return;
    std::vector<double> raw(nodes.size(), 0);
    double best = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeInfo& n = ssn.snap.nodes[nodes[i]];
      raw[i] = static_cast<double>(preferred_node_weight(ssn.snap.pods[pod].contract(), n.name, n.labels));
      best = std::max(best, raw[i]);
    }
    if (best <= 0) return;
    for (size_t i = 0; i < nodes.size(); ++i) scores[i] += weight * 100.0 * raw[i] / best;
  });
}

class NodeOrder : public OptionPlugin {
 public:
  NodeOrder(const PluginOption& o, Weights w) : OptionPlugin(o), w_(w) {}

  void open(Session& ssn) override {
    if (w_.taint_toleration != 0)
      ssn.add_static_node_order(opt_, [&ssn, w = w_.taint_toleration](int pod, int node) {
        int untolerated = 0;
        for (const auto& taint : ssn.snap.nodes[node].taints)
          if (taint.effect == "PreferNoSchedule" && !kube::tolerated(ssn.snap.pods[pod].tolerations(), taint)) ++untolerated;
        return w * 100.0 / (1 + untolerated);
      });
    add_node_affinity_score(ssn, opt_, w_.node_affinity);
    add_inter_pod_affinity_score(ssn, opt_, w_.pod_affinity);
    add_pod_topology_spread_score(ssn, opt_, w_.pod_topology_spread);
    const int cpu = ssn.cluster.dim_of("cpu"), memory = ssn.cluster.dim_of("memory");
    ssn.add_batch_node_order(opt_, [&ssn, w = w_, cpu, memory](int pod, const std::vector<int>& nodes,
                                                                std::vector<double>& scores) {
      const ClusterState& c = ssn.cluster;
      for (size_t i = 0; i < nodes.size(); ++i) {
        double u_cpu = std::min(c.used_fraction(pod, nodes[i], cpu), 1.0);
        double u_mem = std::min(c.used_fraction(pod, nodes[i], memory), 1.0);
        scores[i] += w.least_requested * 100.0 * ((1 - u_cpu) + (1 - u_mem)) / 2 +
                     w.most_requested * 100.0 * (u_cpu + u_mem) / 2 +
                     w.balanced_resource * 100.0 * (1 - std::fabs(u_cpu - u_mem));
      }
    });
  }

 private:
  Weights w_;
};

Result<std::unique_ptr<Plugin>> make(const PluginOption& option, std::vector<std::string>*) {
  Weights w;
  for (const auto& [k, v] : option.arguments.items()) {
    auto n = number_arg(v, k);
    if (!n) return n.error();
    if (k == "leastrequested.weight") w.least_requested = *n;
    else if (k == "mostrequested.weight") w.most_requested = *n;
    else if (k == "balancedresource.weight") w.balanced_resource = *n;
    else if (k == "tainttoleration.weight") w.taint_toleration = *n;
    else if (k == "nodeaffinity.weight") w.node_affinity = *n;
    else if (k == "podaffinity.weight") w.pod_affinity = *n;
    else if (k == "podtopologyspread.weight") w.pod_topology_spread = *n;
    else if (k == "imagelocality.weight" && *n != 0)
      return make_error("argument '" + k + "': weft does not score image locality (it reads no node images); "
                        "set it 0 or leave it out");
    else if (k != "imagelocality.weight")
      return unknown_argument(k, "leastrequested.weight, mostrequested.weight, balancedresource.weight, "
                                 "tainttoleration.weight, nodeaffinity.weight, podaffinity.weight, "
                                 "podtopologyspread.weight, imagelocality.weight (0 only)");
  }
  return std::unique_ptr<Plugin>(std::make_unique<NodeOrder>(option, w));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_nodeorder_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
