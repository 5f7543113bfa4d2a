// Splits a watch response body (one JSON event per line, arriving in arbitrary chunks)
// into events.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace weft::kube {

struct WatchEvent;

class WatchDecoder {
 public:
  // Calls on_event for each complete line; stops early (returning false) when on_event
  // does or when a line is not an event (error() then says why).
  bool feed(std::string_view chunk, const std::function<bool(WatchEvent&&)>& on_event);
  const std::string& error() const { return error_; }

 private:
  std::string partial_;
  std::string error_;
};

}  // namespace weft::kube
