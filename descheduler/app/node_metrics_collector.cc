#include "descheduler/app/node_metrics_collector.h"

#include <spdlog/spdlog.h>

namespace weft::descheduler {

NodeMetricsCollector::NodeMetricsCollector(ListNodeMetricsFn list, std::chrono::milliseconds period)
    : list_(std::move(list)), period_(period) {}

NodeMetricsCollector::~NodeMetricsCollector() { stop(); }

Status NodeMetricsCollector::collect() {
  auto listed = list_();   // outside the lock: a cycle reading the averages never waits for the API
  if (!listed) return listed.error();
  std::lock_guard lock(mu_);
  average_.add(*listed);
  return {};
}

void NodeMetricsCollector::start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      lock.unlock();
      if (auto s = collect(); !s) spdlog::warn("metrics.k8s.io node usage: {}", s.message());
      lock.lock();
      wake_.wait_for(lock, period_, [this] { return stopping_; });
    }
  });
}

void NodeMetricsCollector::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<nlohmann::json> NodeMetricsCollector::node_metrics() const {
  std::lock_guard lock(mu_);
  if (!average_.synced()) return std::nullopt;
  return average_.node_metrics();
}

}  // namespace weft::descheduler
