// The agent's loop: IB probe every ib_interval and at once when a port changes state,
// load summarised every load_interval, the Node patched when a weft.dev/ key changes.
// Each runs on its own thread; a collector that fails or throws leaves the last good
// values in place (marked stale) and never stops the daemon.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "node-agent/daemon/agent_state.h"
#include "node-agent/daemon/metrics.h"
#include "node-agent/daemon/publisher.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

struct DaemonOptions {
  std::chrono::milliseconds ib_interval{30000};
  std::chrono::milliseconds load_interval{5000};
  std::chrono::milliseconds port_poll{1000};   // how often port states are checked
  PublisherOptions publisher{};
};

class Daemon {
 public:
  // api may be null (--no-publish). Sources, state and metrics must outlive the daemon.
  Daemon(IbSource& ib, LoadSource& load, NodeApi* api, AgentState& state, AgentMetrics& metrics,
         std::string node_name, DaemonOptions options);
  ~Daemon();

  // Before start(): names the pods in load snapshots (without one, no pod is published).
  void set_pod_directory(const PodDirectory* directory) { pods_ = directory; }
  void start();
  // Asks every thread to finish and waits up to `grace`. Returns false when a thread
  // was still inside a collector or API call at the deadline (it is then detached;
  // the caller is about to exit and the call has no state to half-write).
  bool stop(std::chrono::milliseconds grace);

 private:
  void ib_loop();
  void load_loop();
  void publish_loop();
  void probe_ib();
  void recall_ib_places();
  void sample_load();
  void publish_once();
  // Sleeps until `until` or stop; returns false on stop.
  bool sleep_until(std::chrono::steady_clock::time_point until);

  IbSource& ib_;
  LoadSource& load_;
  NodeApi* api_;
  const PodDirectory* pods_ = nullptr;
  AgentState& state_;
  AgentMetrics& metrics_;
  std::string node_;
  DaemonOptions options_;
  std::unique_ptr<Publisher> publisher_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool dirty_ = false;        // new values for the publisher
  int running_ = 0;           // threads not yet finished
  std::thread ib_thread_, load_thread_, publish_thread_;
};

}  // namespace weft::agent
