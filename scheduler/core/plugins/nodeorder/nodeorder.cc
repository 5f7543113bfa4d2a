// nodeorder: least-requested, most-requested and balanced-resource scores on cpu and
// memory (with the pod placed), and tainttoleration (fewer untolerated PreferNoSchedule
// taints score higher), each times its weight.
#include "scheduler/core/plugins/nodeorder/nodeorder.h"

#include <algorithm>
#include <cmath>

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

struct Weights {
  double least_requested = 1, most_requested = 0, balanced_resource = 1, taint_toleration = 1;
};

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
    else if (k == "nodeaffinity.weight" || k == "podaffinity.weight" || k == "imagelocality.weight" ||
             k == "podtopologyspread.weight")
      return make_error("argument '" + k + "' is a Volcano score weft does not implement (weft scores " +
                        "leastrequested, mostrequested, balancedresource, tainttoleration)");
    else
      return unknown_argument(k, "leastrequested.weight, mostrequested.weight, balancedresource.weight, "
                                 "tainttoleration.weight");
  }
  return std::unique_ptr<Plugin>(std::make_unique<NodeOrder>(option, w));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_nodeorder_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
