// metrics-server's node usage averaged over time, as the Kubernetes descheduler's metrics
// collector keeps it for LowNodeUtilization's metricsUtilization: a node's first reading
// as it is, each later one folded in as round(0.9 x average + 0.1 x reading), cpu in
// millicores and memory in bytes. A node missing from a reading keeps its average.
// Unlike upstream, the average carries the timestamp of the newest reading folded in, so
// the planner still judges its freshness (a node metrics-server stopped reporting goes
// unknown instead of being acted on with an old average).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace weft::descheduler {

class NodeUsageAverage {
 public:
  // Folds a NodeMetrics list ({"items": [...]} or a bare array) in. Objects without a
  // name, a timestamp or a readable usage.cpu/usage.memory are left out.
  void add(const nlohmann::json& node_metrics);
  // The averages as NodeMetrics objects ({"items": [...]}), the form
  // load_from_kubernetes_metrics reads.
  nlohmann::json node_metrics() const;
  // Whether a reading was folded in (upstream's HasSynced).
  bool synced() const { return synced_; }

 private:
  struct Average {
    int64_t cpu_milli = 0;
    int64_t memory_bytes = 0;
    std::string timestamp;   // of the newest reading, as metrics-server wrote it
    std::string window;
  };
  std::map<std::string, Average> nodes_;
  bool synced_ = false;
};

}  // namespace weft::descheduler
