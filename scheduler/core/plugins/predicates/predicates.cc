// predicates: Volcano's wrapper of kube-scheduler's filters. Always: node readiness and
// NodeUnschedulable (a cordoned node takes only pods tolerating the
// node.kubernetes.io/unschedulable:NoSchedule taint). Behind Volcano's predicate.*Enable
// switches (absent = Volcano's default, on): TaintToleration (NoSchedule/NoExecute),
// NodeAffinity (nodeSelector and required node affinity), NodePorts, InterPodAffinity
// (PodAffinityEnable), PodTopologySpread. Resources and the node's pod count are every
// action's own fit check.
#include "scheduler/core/plugins/predicates/predicates.h"

#include <map>
#include <set>

#include "scheduler/core/plugins/interpodaffinity/inter_pod_affinity.h"
#include "scheduler/core/plugins/nodeports/node_ports.h"
#include "scheduler/core/plugins/plugin_makers.h"
#include "scheduler/core/plugins/podtopologyspread/pod_topology_spread.h"

namespace weft::scheduler {
namespace {

constexpr const char* kNodeAffinity = "predicate.NodeAffinityEnable";
constexpr const char* kTaintToleration = "predicate.TaintTolerationEnable";
constexpr const char* kNodePorts = "predicate.NodePortsEnable";
constexpr const char* kPodAffinity = "predicate.PodAffinityEnable";
constexpr const char* kPodTopologySpread = "predicate.PodTopologySpreadEnable";
constexpr const char* kCache = "predicate.CacheEnable";

// Volcano's defaults for the switches weft honours both ways. The volume switches are
// applied by the volumes plugin, which reads them from this plugin's arguments.
const std::map<std::string, bool>& honoured_switches() {
  static const std::map<std::string, bool> defaults{
      {kNodeAffinity, true},        {kTaintToleration, true},          {kNodePorts, true},
      {kPodAffinity, true},         {kPodTopologySpread, true},        {kCache, false},
      {"predicate.VolumeBindingEnable", true}, {"predicate.VolumeZoneEnable", true},
      {"predicate.NodeVolumeLimitsEnable", true}};
  return defaults;
}

const kube::Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", "NoSchedule"};

class Predicates : public OptionPlugin {
 public:
  Predicates(const PluginOption& option, std::map<std::string, bool> on) : OptionPlugin(option), on_(std::move(on)) {}

  void open(Session& ssn) override {
    const bool taints = on_.at(kTaintToleration), node_affinity = on_.at(kNodeAffinity);
    ssn.add_predicate(opt_, [&ssn, taints, node_affinity](int pod, int node) -> std::string {
      const NodeInfo& n = ssn.snap.nodes[node];
      const PodInfo& p = ssn.snap.pods[pod];
      if (!n.ready) return "node(s) were not ready";
      if (n.unschedulable && !kube::tolerated(p.tolerations(), kUnschedulableTaint)) return "node(s) were unschedulable";
      if (taints)
        if (auto taint = kube::first_untolerated_hard_taint(n.taints, p.tolerations()))
          return "node(s) had untolerated taint {" + taint->key + ": " + taint->value + "}";
      if (node_affinity && !p.affinity().empty() && !p.affinity().matches(n.name, n.labels))
        return "node(s) didn't match Pod's node affinity/selector";
      return "";
    });
    if (on_.at(kNodePorts)) add_node_ports_filter(ssn, opt_);
    if (on_.at(kPodAffinity)) add_inter_pod_affinity_filter(ssn, opt_);
    if (on_.at(kPodTopologySpread)) add_pod_topology_spread_filter(ssn, opt_);
  }

 private:
  std::map<std::string, bool> on_;
};

Status check_argument(const std::string& k, const nlohmann::json& v, std::map<std::string, bool>& on) {
  static const std::set<std::string> not_built{"predicate.DynamicResourceAllocationEnable"};
  static const std::set<std::string> extras_off{"predicate.GPUSharingEnable", "predicate.GPUNumberEnable",
                                                "predicate.ProportionalEnable"};
  if (k == "predicate.resources" || k.rfind("predicate.resources.", 0) == 0) {
    // Settings of the ProportionalEnable extra, which must stay off.
    if (!v.is_string() && !v.is_number()) return make_error("argument '" + k + "': not a string or number");
    return {};
  }
  const bool honoured = on.count(k) > 0;
  if (!honoured && !not_built.count(k) && !extras_off.count(k))
    return unknown_argument(k, "Volcano's predicate.*Enable switches and predicate.resources");
  auto value = bool_arg(v, k);
  if (!value) return value.error();
  if (honoured) {
    on[k] = *value;
    return {};
  }
  if (*value)
    return make_error("argument '" + k + "': weft does not implement this predicate (set it false, or leave it out "
                      "and let pods that need it use kube-scheduler)");
  return {};
}

Result<std::unique_ptr<Plugin>> make(const PluginOption& option, std::vector<std::string>*) {
  std::map<std::string, bool> on = honoured_switches();
  for (const auto& [k, v] : option.arguments.items())
    if (auto st = check_argument(k, v, on); !st) return st.error();
  return std::unique_ptr<Plugin>(std::make_unique<Predicates>(option, std::move(on)));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_predicates_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
