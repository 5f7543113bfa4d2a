// Volcano PodGroups as JSON objects (what the API and scenario files hand the scheduler
// and descheduler).
#include <nlohmann/json.hpp>

#include "fuzz/fuzz.h"
#include "kube/podgroup.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto doc = nlohmann::json::parse(weft::fuzz::text(data, size), nullptr, false);
  if (doc.is_discarded()) return 0;
  auto g = weft::kube::parse_podgroup(doc);
  if (g && g->network_topology)
    weft::fuzz::check(!(g->network_topology->highest_tier_allowed && !g->network_topology->highest_tier_name.empty()),
                      "never both highestTierAllowed and highestTierName");
  return 0;
}
