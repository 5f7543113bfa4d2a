// ib-cluster (weft): a PodGroup annotated weft.dev/ib-cluster: same runs inside one IB
// fabric (nodes labelled weft.dev/ib-fabric): with a network topology, only HyperNodes
// whose nodes share one fabric; without one, the fabrics themselves are its domains.
// Always on: added when the configuration does not list it (the annotation is never ignored).
#include "scheduler/core/plugins/ib-cluster/ib_cluster.h"

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

class IbCluster : public OptionPlugin {
 public:
  using OptionPlugin::OptionPlugin;

  void open(Session& ssn) override {
    ssn.add_domain_filter(opt_, [](const Job& j, const Domain& d) {
      return !j.group || !j.group->same_ib_cluster || !d.fabric.empty();
    });
    ssn.add_job_domains(opt_, [&ssn](const Job& j) -> std::optional<std::vector<DomainRef>> {
      if (!j.group || !j.group->same_ib_cluster) return std::nullopt;
      std::vector<DomainRef> out;
      for (const auto& [fabric, nodes] : ssn.topo().fabrics) out.push_back({fabric, 0, &nodes});
      return out;
    });
  }

};

}  // namespace

Result<std::unique_ptr<Plugin>> make_ib_cluster_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make_without_arguments<IbCluster>(option, warnings);
}

}  // namespace weft::scheduler
