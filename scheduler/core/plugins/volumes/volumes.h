#pragma once
#include "scheduler/core/plugins/registry.h"
namespace weft::scheduler {
// kube-scheduler's volume filters (VolumeBinding, VolumeZone, VolumeRestrictions,
// NodeVolumeLimits) under Volcano's `predicates` plugin and its switches.
Result<std::unique_ptr<Plugin>> make_volumes_plugin(const PluginOption& option, std::vector<std::string>* warnings);
// Whether VolumeBinding runs under this configuration (`predicates` configured, its
// predicate.VolumeBindingEnable not false): its PreBind (claim writes) runs only then, as in Volcano.
bool volume_binding_enabled(const Config& config);
}
