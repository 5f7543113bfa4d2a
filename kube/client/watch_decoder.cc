#include "kube/client/watch_decoder.h"

#include "kube/client/client.h"
#include "kube/client/json_cursor.h"
#include "kube/client/json_reader.h"
#include "kube/client/object_text.h"

namespace weft::kube {

WatchDecoder::WatchDecoder(nlohmann::json keep, bool raw) : raw_(raw) {
  if (!keep.is_null()) event_rule_ = {{"type", true}, {"object", std::move(keep)}};
}

bool WatchDecoder::read_raw(std::string_view line, WatchEvent& event) {
  JsonCursor c(line);
  if (!c.enter_object()) return false;
  std::string key;
  bool typed = false, has_object = false;
  for (;;) {
    auto more = c.next_key(key);
    if (!more) return false;
    if (!*more) break;
    if (key == "type" && c.peek() == '"') {
      if (!c.string(event.type)) return false;
      typed = true;
    } else if (key == "object" && c.peek() == '{') {
      size_t pos = c.pos();   // at the '{' peek() found
      const size_t start = pos;
      auto id = identity_at(line, pos);
      if (!id) return false;
      event.raw = line.substr(start, pos - start);
      event.identity = std::move(*id);
      c.passed(pos);
      has_object = true;
    } else {
      if (key == "type") typed = false;
      if (key == "object") has_object = false;
      if (!c.skip()) return false;
    }
  }
  return typed && has_object && c.end().ok();
}

bool WatchDecoder::feed(std::string_view chunk, const std::function<bool(WatchEvent&&)>& on_event) {
  partial_.append(chunk);
  size_t start = 0;
  bool keep_going = true;
  while (keep_going) {
    size_t nl = partial_.find('\n', start);
    if (nl == std::string::npos) break;
    std::string_view line(partial_.data() + start, nl - start);
    start = nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (raw_) {
      WatchEvent event;
      if (!read_raw(line, event)) {
        error_ = "not a watch event: " + std::string(line.substr(0, 120));
        return false;
      }
      if (event.type != "ERROR") {
        keep_going = on_event(std::move(event));
        continue;
      }
      // An ERROR's Status is read as a tree below.
    }
    auto read = read_json(line, event_rule_);
    // A Status says why the watch ended: read whole.
    if (read && !event_rule_.is_null() && read->is_object() && read->value("type", nlohmann::json()) == "ERROR")
      read = read_json(line);
    nlohmann::json doc = read ? std::move(*read) : nlohmann::json(nlohmann::json::value_t::discarded);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("type") || !doc["type"].is_string() ||
        !doc.contains("object") || !doc["object"].is_object()) {
      error_ = "not a watch event: " + std::string(line.substr(0, 120));
      return false;
    }
    WatchEvent event{doc["type"].get<std::string>(), std::move(doc["object"])};
    keep_going = on_event(std::move(event));
  }
  partial_.erase(0, start);
  return keep_going;
}

}  // namespace weft::kube
