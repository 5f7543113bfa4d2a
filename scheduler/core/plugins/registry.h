// Every plugin weft implements, by Volcano name. Adding a plugin: a folder under
// plugins/ with a factory, and one line in registry.cc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

// Parses the plugin's arguments (errors name the argument; warnings for Volcano's own
// fallbacks) and returns an instance for one session.
using PluginMaker = Result<std::unique_ptr<Plugin>> (*)(const PluginOption& option, std::vector<std::string>* warnings);

struct PluginFactory {
  const char* name;
  PluginMaker make;
  bool implicit = false;   // weft's own constraint plugins: on unless the configuration lists them
};

const std::vector<PluginFactory>& plugin_factories();
const PluginFactory* find_plugin(const std::string& name);
// Volcano plugins weft refuses (named in the error instead of "unknown").
bool volcano_plugin_not_implemented(const std::string& name);
std::string implemented_plugin_names();   // "gang, priority, ..."

}  // namespace weft::scheduler
