#pragma once
#include "scheduler/core/plugins/registry.h"
namespace weft::scheduler {
Result<std::unique_ptr<Plugin>> make_rail_health_plugin(const PluginOption& option, std::vector<std::string>* warnings);
}
