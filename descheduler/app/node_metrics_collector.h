// LowNodeUtilization's metricsUtilization (KubernetesMetrics) in `run --interval`: as the
// Kubernetes descheduler's metrics collector, node usage is read every 5 seconds between
// cycles and averaged (core/node_usage_average.h); a cycle plans on the average. weft
// lists NodeMetrics once per read where upstream gets each node's.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/core/node_usage_average.h"

namespace weft::descheduler {

// One NodeMetrics list from the API (its own client: the collector runs on its own thread).
using ListNodeMetricsFn = std::function<Result<nlohmann::json>()>;

class NodeMetricsCollector {
 public:
  static constexpr std::chrono::milliseconds kPeriod{5000};   // upstream's

  explicit NodeMetricsCollector(ListNodeMetricsFn list, std::chrono::milliseconds period = kPeriod);
  ~NodeMetricsCollector();   // stops the thread
  NodeMetricsCollector(const NodeMetricsCollector&) = delete;
  NodeMetricsCollector& operator=(const NodeMetricsCollector&) = delete;

  // One read folded in; a failed list keeps the averages (upstream: "do nothing").
  Status collect();
  // Reads every period on a thread of its own, the first read at once.
  void start();
  void stop();
  // The averages as a NodeMetrics list; until a read succeeded, nullopt.
  std::optional<nlohmann::json> node_metrics() const;

 private:
  ListNodeMetricsFn list_;
  std::chrono::milliseconds period_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  NodeUsageAverage average_;
  std::thread thread_;
};

}  // namespace weft::descheduler
