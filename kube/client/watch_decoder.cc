#include "kube/client/watch_decoder.h"

#include "kube/client/client.h"
#include "kube/client/json_reader.h"

namespace weft::kube {

WatchDecoder::WatchDecoder(nlohmann::json keep) {
  if (!keep.is_null()) event_rule_ = {{"type", true}, {"object", std::move(keep)}};
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
