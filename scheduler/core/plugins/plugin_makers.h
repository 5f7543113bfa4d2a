// Helpers for plugin factories (scheduler/core/plugins/<name>/<name>.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "scheduler/core/framework/session.h"
#include "scheduler/core/plugins/arguments.h"

namespace weft::scheduler {

// A plugin that keeps its configuration entry (for its switches and tier).
class OptionPlugin : public Plugin {
 public:
  explicit OptionPlugin(const PluginOption& option) : opt_(option) {}

 protected:
  PluginOption opt_;
};

// The factory of a plugin that takes no arguments.
template <class P>
Result<std::unique_ptr<Plugin>> make_without_arguments(const PluginOption& option, std::vector<std::string>*) {
  if (!option.arguments.empty())
    return unknown_argument(option.arguments.items().begin().key(), "none: this plugin takes no arguments");
  return std::unique_ptr<Plugin>(std::make_unique<P>(option));
}

}  // namespace weft::scheduler
