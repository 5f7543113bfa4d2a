// One watch stream: from a resourceVersion (or from "now" with the current objects as
// ADDED events), filtered by namespace and selectors with the real server's
// transitions (an object that stops matching is sent as DELETED), BOOKMARKs when asked
// for, an ERROR event with a 410 Status when the version has left the event window,
// and an end after timeoutSeconds or after N events (--drop-watch-after).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "tools/kube-lite/registry.h"

namespace weft::kube_lite {

struct WatchOptions {
  std::string resource_version;   // "" or "0": start with the current objects
  bool bookmarks = false;
  int timeout_seconds = 0;        // 0: until the client goes or the server stops
  size_t drop_after = 0;          // end the stream after this many events (0: never)
  std::chrono::milliseconds bookmark_interval{1000};
};

class WatchSession {
 public:
  // The filter must have been made for the same type and namespace.
  WatchSession(Store& store, const ResourceType& type, ObjectFilter filter, WatchOptions options);
  // Validates the start version; an error here is answered as HTTP status instead of a stream.
  std::optional<ApiError> start();
  // The next lines to send (may be empty after waiting up to `wait`), or nullopt at the end.
  std::optional<std::string> next(std::chrono::milliseconds wait);

 private:
  std::string line(const std::string& type, const std::string& object_text) const;
  std::string bookmark() const;

  Store& store_;
  const ResourceType& type_;
  ObjectFilter filter_;
  WatchOptions options_;
  uint64_t last_ = 0;
  std::string initial_;           // ADDED events for a watch from "now"
  size_t sent_ = 0;
  bool ended_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point last_write_;
  std::chrono::steady_clock::time_point last_events_;   // when events were last sent
};

}  // namespace weft::kube_lite
