// network-topology-aware: orders the HyperNodes a topology job may use by how full they
// would be with the job in them (HyperNode bin packing over cpu, memory and any listed
// resource, each with its weight), times `weight`. Which HyperNodes a job may use at all
// (tiers, highestTierAllowed/highestTierName) is the allocate action's, as in Volcano.
#include "scheduler/core/plugins/network-topology-aware/network_topology_aware.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

struct Args {
  double weight = 1;
  std::map<std::string, double> resources{{"cpu", 1}, {"memory", 1}};
};

class NetworkTopologyAware : public OptionPlugin {
 public:
  NetworkTopologyAware(const PluginOption& o, Args a) : OptionPlugin(o), args_(std::move(a)) {}

  void open(Session& ssn) override {
    ssn.add_hypernode_order(opt_, [this, &ssn](const Job& job, const DomainRef& d) {
      const ClusterState& c = ssn.cluster;
      double sum = 0, weights = 0;
      for (const auto& [name, w] : args_.resources) {
        int dim = c.dim_of(name);
        if (dim < 0 || w <= 0) continue;
        double want = 0;
        for (int p : job.pending) want += static_cast<double>(c.request(p)[dim]);
        if (want <= 0) continue;
        double alloc = 0, used = 0;
        for (int n : *d.nodes) {
          alloc += static_cast<double>(c.allocatable(n, dim));
          used += static_cast<double>(c.allocatable(n, dim) - c.free(n, dim));
        }
        if (alloc <= 0) continue;
        sum += w * std::min(1.0, (used + want) / alloc);
        weights += w;
      }
      return weights > 0 ? args_.weight * 100.0 * sum / weights : 0.0;
    });
  }

 private:
  Args args_;
};

Result<std::unique_ptr<Plugin>> make(const PluginOption& option, std::vector<std::string>*) {
  Args a;
  const std::string prefix = "hypernode.binpack.resources.";
  for (const auto& [k, v] : option.arguments.items()) {
    if (k == "hypernode.binpack.resources") {
      if (!v.is_string()) return make_error("argument '" + k + "': not a comma-separated string");
      std::string list = v.get<std::string>() + ",";
      std::string name;
      for (char ch : list) {
        if (ch != ',') {
          if (!std::isspace(static_cast<unsigned char>(ch))) name += ch;
          continue;
        }
        if (!name.empty() && !a.resources.count(name)) a.resources[name] = 1;
        name.clear();
      }
      continue;
    }
    if (k == "hypernode.binpack.normal-pod.enable" || k == "hypernode.binpack.normal-pod.fading" ||
        k == "hypernode.gradient.evict.max-hypernodes")
      return make_error("argument '" + k + "' is a Volcano setting weft does not implement (pods without a "
                        "network topology are scored by node only; eviction searches every allowed domain)");
    auto n = number_arg(v, k);
    if (!n) return n.error();
    // Volcano resets a negative weight to the default 1.
    double w = *n < 0 ? 1 : *n;
    if (k == "weight") a.weight = w;
    else if (k == "hypernode.binpack.cpu") a.resources["cpu"] = w;
    else if (k == "hypernode.binpack.memory") a.resources["memory"] = w;
    else if (k.rfind(prefix, 0) == 0) a.resources[k.substr(prefix.size())] = w;
    else
      return unknown_argument(k, "weight, hypernode.binpack.cpu, hypernode.binpack.memory, "
                                 "hypernode.binpack.resources, hypernode.binpack.resources.<name>");
  }
  return std::unique_ptr<Plugin>(std::make_unique<NetworkTopologyAware>(option, std::move(a)));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_network_topology_aware_plugin(const PluginOption& option,
                                                                   std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
