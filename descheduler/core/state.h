// What the descheduler remembers between cycles so it does not oscillate: when each node
// was last a source of evictions and when each workload was last moved. Held in memory
// by --interval runs and stored in a ConfigMap by --once runs.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/core/load.h"

namespace weft::descheduler {

// Load sent to a target node that its window-averaged metrics do not show yet.
struct Arrival {
  TimePoint at;             // the latest move onto the node
  double cpu = 0;           // millicores
  double memory = 0;        // bytes (milli-units, as kube::ResourceList holds them)
};

struct DeschedulerState {
  std::map<std::string, TimePoint> source_evicted_at;   // node -> last eviction from it
  std::map<std::string, TimePoint> workload_moved_at;   // workload -> last move
  std::map<std::string, Arrival> arrivals;              // target node -> moves of the last window

  // Forgets entries older than keep (nothing older can matter any more).
  void prune(TimePoint now, Seconds keep);
  nlohmann::json to_json() const;
  static Result<DeschedulerState> from_json(const nlohmann::json& doc, const std::string& where);
};

}  // namespace weft::descheduler
