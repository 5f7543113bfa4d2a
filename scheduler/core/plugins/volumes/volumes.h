#pragma once
#include "scheduler/core/plugins/registry.h"
namespace weft::scheduler {
// kube-scheduler's volume filters (VolumeBinding, VolumeZone, VolumeRestrictions,
// NodeVolumeLimits) under Volcano's `predicates` plugin and its switches.
Result<std::unique_ptr<Plugin>> make_volumes_plugin(const PluginOption& option, std::vector<std::string>* warnings);
}
