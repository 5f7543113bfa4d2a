// Splits a watch response body (one JSON event per line, arriving in arbitrary chunks)
// into events.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace weft::kube {

struct WatchEvent;

class WatchDecoder {
 public:
  WatchDecoder() = default;
  // Each event's object decoded straight to `keep` (a kube::project() tree); ERROR
  // events' Status objects are kept whole. raw: events carry their object's text and
  // identity instead (WatchEvent::raw), except ERROR events.
  explicit WatchDecoder(nlohmann::json keep, bool raw = false);
  // Calls on_event for each complete line; stops early (returning false) when on_event
  // does or when a line is not an event (error() then says why).
  bool feed(std::string_view chunk, const std::function<bool(WatchEvent&&)>& on_event);
  const std::string& error() const { return error_; }

 private:
  // One line's event as text and identity (raw mode), without a tree; false when the
  // line is not an event.
  bool read_raw(std::string_view line, WatchEvent& event);

  nlohmann::json event_rule_;   // {"type": true, "object": keep}; null: whole events
  bool raw_ = false;
  std::string partial_;
  std::string error_;
};

}  // namespace weft::kube
