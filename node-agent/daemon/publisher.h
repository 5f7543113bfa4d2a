// Keeps the agent's own Node in step with the probe: reads the Node, sends one merge
// patch only when a weft.dev/ key must change, and backs off on API errors.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "node-agent/daemon/node_metadata.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

struct PublisherOptions {
  std::chrono::seconds heartbeat{60};          // load annotation re-written at least this often
  double load_threshold = 0.05;                // ... and when cpu or memory moved more than this
  std::chrono::seconds resync{60};             // re-read the Node at least this often
  std::chrono::milliseconds backoff_min{500};
  std::chrono::milliseconds backoff_max{30000};
};

class Publisher {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Outcome { NoChange, Patched, Failed, Waiting };
  struct Result {
    Outcome outcome = Outcome::NoChange;
    std::string detail;        // changed keys, or the error
    int status = 0;            // HTTP status of a failure, 0 when unreachable
  };

  Publisher(NodeApi& api, std::string node_name, PublisherOptions options);

  // One step: `ib` absent until the first good IB probe, `load` absent until the
  // first good load sample. Never throws.
  Result publish(const NodeMetadata* ib, const std::optional<std::string>& load,
                 std::chrono::system_clock::time_point load_at, Clock::time_point now = Clock::now());

  // When the next attempt may be made after a failure (now when none pending).
  Clock::time_point next_attempt() const { return next_attempt_; }
  int consecutive_failures() const { return failures_; }

 private:
  Result fail(const Error& e, Clock::time_point now, bool reread_now);

  NodeApi& api_;
  std::string node_;
  PublisherOptions options_;
  std::optional<nlohmann::json> cached_;   // the Node as the API last returned it
  Clock::time_point cached_at_{};
  Clock::time_point next_attempt_{};
  int failures_ = 0;
};

}  // namespace weft::agent
