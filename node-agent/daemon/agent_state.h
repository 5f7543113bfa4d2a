// The daemon's last good view of the machine, shared between the probe threads (which
// write it) and the HTTP server and publisher (which read copies of it).
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "node-agent/daemon/snapshot.h"

namespace weft::agent {

struct CollectorStatus {
  bool stale = false;              // the last attempt failed; values are the last good ones
  std::string last_error;
  uint64_t errors = 0;             // failed attempts since start
  uint64_t successes = 0;
  std::chrono::system_clock::time_point last_success{};
};

struct StateView {
  std::string node;
  std::optional<IbSnapshot> ib;
  std::optional<LoadSnapshot> load;
  std::chrono::system_clock::time_point load_at{};
  CollectorStatus ib_status;
  CollectorStatus load_status;
};

class AgentState {
 public:
  explicit AgentState(std::string node) { view_.node = std::move(node); }

  void ib_ok(IbSnapshot snapshot);
  void ib_failed(const std::string& error);
  void load_ok(LoadSnapshot snapshot, std::chrono::system_clock::time_point at);
  void load_failed(const std::string& error);

  StateView view() const;
  // Ready once the first IB probe has succeeded (the labels depend on it).
  bool ready() const;

 private:
  mutable std::mutex mu_;
  StateView view_;
};

// The probe JSON of docs/contracts.md ({"node","rdma","ib","load","labels"}) plus a "stale"
// object naming the collectors whose values are the last good ones.
nlohmann::json probe_json(const StateView& view);

}  // namespace weft::agent
