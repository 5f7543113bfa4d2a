// Long-running sampling for the agent daemon: started once, it reads the source every
// period and keeps the readings of the last window; summary() can be called at any
// time from any thread (e.g. by the /metrics handler). With a PodTracker, each reading
// also follows the pods' groups and the summary has each pod's usage.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collectors/load/load.h"
#include "collectors/load/pods/pod_tracker.h"
#include "collectors/load/select.h"

namespace weft::load {

class LoadSampler : public LoadMonitor {
 public:
  LoadSampler(SelectedSource selected, SamplerOptions options, std::unique_ptr<PodTracker> pods = nullptr);
  ~LoadSampler() override;
  LoadSampler(const LoadSampler&) = delete;
  LoadSampler& operator=(const LoadSampler&) = delete;

  // Before start(): adds a cgroup to every summary.
  Status watch_cgroup(const std::string& path);
  // Takes the first reading (errors are returned) and starts the sampling thread.
  Status start();
  void stop();
  std::optional<LoadSummary> summary() const override;
  std::string last_error() const override;

 private:
  void loop();
  void take_reading();

  Result<LoadCounters> read_source();

  std::unique_ptr<LoadSource> source_;
  std::unique_ptr<PodTracker> pod_tracker_;  // used on the sampling thread (and by start())
  std::string reason_;
  SamplerOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::deque<LoadCounters> readings_;
  std::optional<LoadCounters> first_;
  std::string last_error_;
  std::map<uint32_t, PodCgroup> pods_;  // the tracker's pods as of the last reading
  std::thread thread_;
};

}  // namespace weft::load
