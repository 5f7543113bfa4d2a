// predicates: node readiness and cordon, NoSchedule/NoExecute taints, node selector and
// required node affinity (resources and the pod count are every action's own fit check).
// Arguments: Volcano's predicate.*Enable switches. weft always applies the filters it
// has, so those may be set on but not off; the optional extras it lacks may stay off.
#include "scheduler/core/plugins/predicates/predicates.h"

#include <set>

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

class Predicates : public OptionPlugin {
 public:
  using OptionPlugin::OptionPlugin;

  void open(Session& ssn) override {
    ssn.add_predicate(opt_, [&ssn](int pod, int node) -> std::string {
      const NodeInfo& n = ssn.snap.nodes[node];
      const PodInfo& p = ssn.snap.pods[pod];
      if (!n.ready) return "node(s) were not ready";
      if (n.unschedulable) return "node(s) were unschedulable";
      for (const auto& taint : n.taints)
        if ((taint.effect == "NoSchedule" || taint.effect == "NoExecute") && !kube::tolerated(p.tolerations(), taint))
          return "node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}";
      if (!p.affinity().empty() && !p.affinity().matches(n.name, n.labels))
        return "node(s) didn't match Pod's node affinity/selector";
      return "";
    });
  }

};

Status check_argument(const std::string& k, const nlohmann::json& v) {
  static const std::set<std::string> always_on{"predicate.NodeAffinityEnable", "predicate.TaintTolerationEnable"};
  static const std::set<std::string> not_built{"predicate.NodePortsEnable",        "predicate.PodAffinityEnable",
                                               "predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable",
                                               "predicate.PodTopologySpreadEnable", "predicate.VolumeBindingEnable",
                                               "predicate.DynamicResourceAllocationEnable"};
  static const std::set<std::string> extras_off{"predicate.GPUSharingEnable", "predicate.GPUNumberEnable",
                                                "predicate.CacheEnable", "predicate.ProportionalEnable"};
  if (k == "predicate.resources" || k.rfind("predicate.resources.", 0) == 0) {
    // Settings of the ProportionalEnable extra, which must stay off.
    if (!v.is_string() && !v.is_number()) return make_error("argument '" + k + "': not a string or number");
    return {};
  }
  if (!always_on.count(k) && !not_built.count(k) && !extras_off.count(k))
    return unknown_argument(k, "Volcano's predicate.*Enable switches and predicate.resources");
  auto on = bool_arg(v, k);
  if (!on) return on.error();
  if (always_on.count(k) && !*on) return make_error("argument '" + k + "': weft always applies this filter");
  if ((extras_off.count(k) || not_built.count(k)) && *on)
    return make_error("argument '" + k + "': weft does not implement this predicate (set it false, or leave it out "
                      "and let pods that need it use kube-scheduler)");
  return {};
}

Result<std::unique_ptr<Plugin>> make(const PluginOption& option, std::vector<std::string>*) {
  for (const auto& [k, v] : option.arguments.items())
    if (auto st = check_argument(k, v); !st) return st.error();
  return std::unique_ptr<Plugin>(std::make_unique<Predicates>(option));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_predicates_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
