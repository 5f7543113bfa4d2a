#include "kube/client/list_decoder.h"

namespace weft::kube {

using nlohmann::json;

Result<ListMeta> decode_list(const std::string& body, const std::function<void(json&&)>& on_item) {
  ListMeta meta;
  std::string top_key;
  bool items_was_array = false;
  // The parser callback sees every value; depth 1 is the List's own fields and depth 2
  // the items. Returning false for a finished item drops it from the tree after we
  // have moved it out.
  json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
    if (depth == 1 && event == json::parse_event_t::key) {
      top_key = parsed.get<std::string>();
    } else if (depth == 1 && event == json::parse_event_t::array_start && top_key == "items") {
      items_was_array = true;
    } else if (depth == 2 && top_key == "items" && event == json::parse_event_t::object_end) {
      ++meta.items;
      on_item(std::move(parsed));
      return false;
    }
    return true;
  };
  json rest;
  try {
    rest = json::parse(body, callback);
  } catch (const json::parse_error& e) {
    return make_error(std::string("response is not valid JSON: ") + e.what());
  }
  if (!rest.is_object()) return make_error("response is not a List object");
  if (!items_was_array && !(rest.contains("items") && rest["items"].is_null())) {
    return make_error("response is not a List (no items array)");
  }
  if (auto m = rest.find("metadata"); m != rest.end() && m->is_object()) {
    meta.resource_version = m->value("resourceVersion", "");
    meta.continue_token = m->value("continue", "");
  }
  return meta;
}

}  // namespace weft::kube
