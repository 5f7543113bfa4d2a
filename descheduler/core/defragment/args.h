// The GangDefragment plugin's args in a descheduler/v1alpha2 profile:
//
//   pluginConfig:
//   - name: GangDefragment
//     args:
//       evictableNamespaces: {exclude: [kube-system]}   # or include; not both
//       reservationTTL: 10m          # how long the freed room is held for the gang
//       maxEvictionsPerGang: 32      # a gang needing more moves than this is not helped
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/core/load.h"
#include "descheduler/core/plugins/common/args.h"

namespace weft::descheduler::defragment {

inline constexpr const char* kPluginName = "GangDefragment";

struct Args {
  std::vector<std::string> include_namespaces, exclude_namespaces;
  Seconds reservation_ttl{600};
  int max_evictions_per_gang = 32;
};

// Every problem at once, one a line naming its place (as the other plugins' args):
// "policy.yaml: profiles[0].pluginConfig[2].args.reservationTTL: ...". Null args are the defaults.
Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

}  // namespace weft::descheduler::defragment
