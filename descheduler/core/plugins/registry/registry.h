// The upstream strategy plugins weft-descheduler implements (one folder each under
// descheduler/core/plugins/), by the name a policy enables them under: which extension
// point each implements and how its args are read (defaults, then validation).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/args.h"

namespace weft::descheduler::plugins {

using MakePlugin = Result<std::shared_ptr<framework::Plugin>> (*)(const args::Ctx& c, const nlohmann::json& args,
                                                                   const std::string& path);

struct Registration {
  const char* name;
  bool deschedule;   // implements the Deschedule extension point
  bool balance;      // implements the Balance extension point
  MakePlugin make;   // null args: upstream's defaults
};

// nullptr for a name weft does not implement here (LoadAware, LowNodeUtilization and
// GangDefragment are read by the policy itself).
const Registration* find(const std::string& name);
std::vector<std::string> names();

// Adds a policy profile's enabled strategies (PolicyProfile::strategies) to the profile the
// runner runs: Deschedule plugins to its deschedule list, Balance plugins to its balance
// list, in the policy's order. The profile shares the plugin objects with the policy.
void add_to_profile(const PolicyProfile& enabled, framework::Profile& profile);

}  // namespace weft::descheduler::plugins
