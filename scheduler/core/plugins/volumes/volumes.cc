// volumes: kube-scheduler's volume filters as Volcano's `predicates` plugin runs them,
// with its switches read from that plugin's arguments (absent: Volcano's defaults, on):
//   predicate.VolumeBindingEnable     VolumeBinding (binding.h)
//   predicate.VolumeZoneEnable        VolumeZone (zone.h)
//   predicate.NodeVolumeLimitsEnable  NodeVolumeLimits, CSI (placed.h)
// VolumeRestrictions (ReadWriteOncePod) has no switch in Volcano; weft applies it with
// the others. Nothing runs when `predicates` is not configured, or its predicate switch
// is off, as in Volcano. Filters that depend only on the snapshot are evaluated once per
// pod signature (the claims are part of it); those that depend on this cycle's
// placements (ReadWriteOncePod, volume counts, static volumes taken) are re-checked.
#include "scheduler/core/plugins/volumes/volumes.h"

#include "scheduler/core/plugins/plugin_makers.h"
#include "scheduler/core/plugins/volumes/binding.h"
#include "scheduler/core/plugins/volumes/placed.h"
#include "scheduler/core/plugins/volumes/zone.h"

namespace weft::scheduler {
namespace {

struct Switches {
  bool binding = true, zone = true, limits = true;
};

Result<Switches> switches_of(const PluginOption& predicates) {
  Switches s;
  for (auto [key, into] : {std::pair{"predicate.VolumeBindingEnable", &s.binding},
                           std::pair{"predicate.VolumeZoneEnable", &s.zone},
                           std::pair{"predicate.NodeVolumeLimitsEnable", &s.limits}}) {
    if (!predicates.arguments.contains(key)) continue;
    auto on = bool_arg(predicates.arguments[key], key);
    if (!on) return on.error();
    *into = *on;
  }
  return s;
}

class Volumes : public OptionPlugin {
 public:
  using OptionPlugin::OptionPlugin;

  void open(Session& ssn) override {
    const PluginOption* predicates = ssn.config.plugin("predicates");
    if (!predicates) return;
    auto on = switches_of(*predicates);
    if (!on) return;   // the predicates plugin refuses the configuration first
    const Snapshot& snap = ssn.snap;
    placed_ = std::make_unique<PlacedVolumes>(snap, ssn.node_of_pod);
    if (!placed_->any()) return;
    const Switches s = *on;
    ssn.add_predicate(*predicates, [&snap, s](int pod, int node) -> std::string {
      const PodInfo& p = snap.pods[pod];
      if (!p.volumes) return "";
      const NodeInfo& n = snap.nodes[node];
      if (s.binding)
        if (std::string why = claims_reject_node(snap.storage, p, n, {}); !why.empty()) return why;
      if (s.zone) return volume_zone_reject(snap.storage, p, n);
      return "";
    });
    PlacedVolumes* placed = placed_.get();
    ssn.add_dynamic_predicate(*predicates, [&snap, placed, s](int pod, int node) -> std::string {
      if (!snap.pods[pod].volumes) return "";
      if (std::string why = placed->once_pod_reject(pod); !why.empty()) return why;
      if (std::string why = placed->disk_reject(pod, node); !why.empty()) return why;
      if (s.binding)
        if (auto taken = placed->taken_volumes(pod); !taken.empty())
          if (std::string why = claims_reject_node(snap.storage, snap.pods[pod], snap.nodes[node], taken); !why.empty())
            return why;
      if (s.limits) return placed->limits_reject(pod, node);
      return "";
    });
  }

 private:
  std::unique_ptr<PlacedVolumes> placed_;
};

}  // namespace

bool volume_binding_enabled(const Config& config) {
  const PluginOption* predicates = config.plugin("predicates");
  if (!predicates) return false;
  auto on = switches_of(*predicates);
  return on && on->binding;
}

Result<std::unique_ptr<Plugin>> make_volumes_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make_without_arguments<Volumes>(option, warnings);
}

}  // namespace weft::scheduler
