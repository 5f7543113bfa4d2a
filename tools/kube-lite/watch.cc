#include "tools/kube-lite/watch.h"

#include <thread>

namespace weft::kube_lite {

using nlohmann::json;
using Steady = std::chrono::steady_clock;

namespace {
constexpr std::chrono::milliseconds kGatherEvents{2};
}  // namespace

WatchSession::WatchSession(Store& store, const ResourceType& type, ObjectFilter filter, WatchOptions options)
    : store_(store), type_(type), filter_(std::move(filter)), options_(std::move(options)) {
  deadline_ = options_.timeout_seconds > 0 ? Steady::now() + std::chrono::seconds(options_.timeout_seconds)
                                           : Steady::time_point::max();
  last_write_ = Steady::now();
}

std::string WatchSession::line(const std::string& type, const std::string& object_text) const {
  return watch_line(type, object_text);
}

std::string WatchSession::bookmark() const {
  json obj = {{"kind", type_.kind}, {"apiVersion", type_.api_version()},
              {"metadata", {{"resourceVersion", std::to_string(last_)}}}};
  return line("BOOKMARK", obj.dump());
}

std::optional<ApiError> WatchSession::start() {
  const std::string& rv = options_.resource_version;
  if (rv.empty() || rv == "0") {
    auto txn = store_.begin();
    last_ = txn.resource_version();
    txn.scan(type_.id, "", "", [&](const std::string&, const ObjectPtr& obj) {
      if (!filter_.matches(obj->value)) return true;
      if (options_.drop_after == 0 || sent_ < options_.drop_after) {
        initial_ += line("ADDED", obj->text);
        ++sent_;
      }
      return true;
    });
    return std::nullopt;
  }
  try {
    size_t used = 0;
    last_ = std::stoull(rv, &used);
    if (used != rv.size()) throw std::invalid_argument(rv);
  } catch (const std::exception&) {
    return bad_request("invalid resource version \"" + rv + "\"");
  }
  return std::nullopt;
}

std::optional<std::string> WatchSession::next(std::chrono::milliseconds wait) {
  if (ended_ || store_.shut_down() || Steady::now() >= deadline_) return std::nullopt;
  // Events that follow the last sent ones closely (a scheduler's bindings) are sent
  // together a moment later, not each on its own wake-up and write; an event after a
  // quiet spell leaves at once.
  if (const auto gather_until = last_events_ + kGatherEvents;
      Steady::now() < gather_until && store_.changed_since(type_.id, last_))
    std::this_thread::sleep_until(gather_until);
  std::string out = std::move(initial_);
  initial_.clear();
  auto reached_limit = [&] { return options_.drop_after > 0 && sent_ >= options_.drop_after; };
  if (!reached_limit()) {
    auto batch = store_.events_after(type_.id, last_, 512);
    if (batch.too_old) {
      ApiError e = gone("too old resource version: " + std::to_string(last_) + " (" +
                        std::to_string(batch.oldest_available) + ")");
      ended_ = true;
      return out + line("ERROR", e.to_status().dump());
    }
    for (const auto& event : batch.events) {
      const ChangeEvent& ev = *event;
      last_ = ev.resource_version;
      if (ev.type_id != type_.id) continue;
      bool now_matches = filter_.matches(ev.object->value);
      const char* type = nullptr;   // set when a selector transition changes the event's type
      if (ev.type == "MODIFIED") {
        bool before = filter_.matches(ev.previous->value);
        if (!before && !now_matches) continue;
        if (!before) type = "ADDED";
        if (!now_matches) type = "DELETED";
      } else if (!now_matches) {
        continue;
      }
      if (type) out += line(type, ev.object->text);
      else out += *ev.line;
      ++sent_;
      if (reached_limit()) break;
    }
    if (batch.events.size() < 512 && !reached_limit()) last_ = std::max(last_, batch.current);
  }
  if (reached_limit()) ended_ = true;
  if (!out.empty()) {
    last_write_ = last_events_ = Steady::now();
    return out;
  }
  auto now = Steady::now();
  if (options_.bookmarks && now - last_write_ >= options_.bookmark_interval) {
    last_write_ = now;
    return bookmark();
  }
  auto until = std::min(deadline_, now + wait);
  if (options_.bookmarks) until = std::min(until, last_write_ + options_.bookmark_interval);
  // Rounded up: truncating would wake up to 1 ms before a bookmark is due, and every
  // call in that last millisecond would return at once with nothing (a spin).
  store_.wait_for_change(type_.id, last_, std::chrono::ceil<std::chrono::milliseconds>(until - now));
  return std::string();
}

}  // namespace weft::kube_lite
