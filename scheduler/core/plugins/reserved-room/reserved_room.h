#pragma once
#include "scheduler/core/plugins/registry.h"
namespace weft::scheduler {
Result<std::unique_ptr<Plugin>> make_reserved_room_plugin(const PluginOption& option, std::vector<std::string>* warnings);
}
