// Kubernetes Events (core/v1) about an object, for `kubectl describe` to show why the
// scheduler did or did not place a pod.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"

namespace weft::kube {

class EventRecorder {
 public:
  EventRecorder(Client& client, std::string component, std::string host = "");
  // type "Normal" or "Warning"; reason a CamelCase word ("Scheduled", "FailedScheduling").
  Result<nlohmann::json> record(const nlohmann::json& involved, const std::string& type, const std::string& reason,
                                const std::string& message);

  // Posts an Event that build() made.
  Result<nlohmann::json> post(const nlohmann::json& event);
  // The Event object that record() posts (exposed for tests).
  nlohmann::json build(const nlohmann::json& involved, const std::string& type, const std::string& reason,
                       const std::string& message) const;

 private:
  Client& client_;
  std::string component_;
  std::string host_;
};

// Events posted apart from the caller, as kube-scheduler's event broadcaster does: record()
// builds the Event at once (its timestamps say when it happened) and queues it; `workers`
// threads post the queue through the recorder's client, which should be a client of its
// own so Events spend their own QPS budget, never the bindings'. A full queue drops the
// Event (counted) instead of holding the caller up; Events are advisory.
class AsyncEventRecorder {
 public:
  AsyncEventRecorder(EventRecorder& recorder, size_t capacity = 10000, int workers = 4);
  ~AsyncEventRecorder();   // posts what is queued for up to drain_timeout, then stops
  AsyncEventRecorder(const AsyncEventRecorder&) = delete;
  AsyncEventRecorder& operator=(const AsyncEventRecorder&) = delete;

  // False when the queue is full and the Event was dropped.
  bool record(const nlohmann::json& involved, const std::string& type, const std::string& reason,
              const std::string& message);
  // Waits until the queue is empty and nothing is being posted, or the timeout passes.
  bool flush(Millis timeout);
  // Posts what is queued for up to `timeout`, drops the rest and stops the workers
  // (idempotent; the destructor does it with drain_timeout).
  void close(Millis timeout);

  struct Counts {
    uint64_t posted = 0, failed = 0, dropped = 0;
  };
  Counts counts() const;
  Millis drain_timeout{2000};

 private:
  void work();

  EventRecorder& recorder_;
  size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable ready_, idle_;
  std::deque<nlohmann::json> queue_;
  size_t posting_ = 0;
  bool stopping_ = false;
  Counts counts_;
  std::vector<std::thread> workers_;
};

}  // namespace weft::kube
