// conformance: never evicts kube-system pods or system-critical ones.
#include "scheduler/core/plugins/conformance/conformance.h"

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

class Conformance : public OptionPlugin {
 public:
  using OptionPlugin::OptionPlugin;

  void open(Session& ssn) override {
    auto victims = [&ssn](int, const std::vector<int>& candidates) -> std::optional<std::vector<int>> {
      std::vector<int> out;
      for (int v : candidates) {
        const PodInfo& p = ssn.snap.pods[v];
        if (p.namespace_name == "kube-system" || p.priority_class == "system-cluster-critical" ||
            p.priority_class == "system-node-critical")
          continue;
        out.push_back(v);
      }
      return out;
    };
    ssn.add_preemptable(opt_, victims);
    ssn.add_reclaimable(opt_, victims);
  }

};

}  // namespace

Result<std::unique_ptr<Plugin>> make_conformance_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make_without_arguments<Conformance>(option, warnings);
}

}  // namespace weft::scheduler
