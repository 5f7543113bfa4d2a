// The API's list responses (streamed item by item) and watch streams (one JSON event a
// line, in chunks split anywhere): the first byte picks where the watch body splits.
// The whole body is also read by kube::read_json, whole and straight to a projection (what
// weft-scheduler run reads of pods): it must give nlohmann's parse(text), and
// project(parse(text)), exactly (number kinds too), or fail where parse fails.
#include <nlohmann/json.hpp>

#include "fuzz/fuzz.h"
#include "kube/client/client.h"
#include "kube/client/json_reader.h"
#include "kube/client/list_decoder.h"
#include "kube/client/object_text.h"
#include "kube/objects.h"
#include "kube/client/projection.h"
#include "kube/client/watch_decoder.h"

namespace {

const nlohmann::json& keep() {
  static const nlohmann::json rule = {
      {"metadata", {{"name", true}, {"labels", true}, {"annotations", {{"a", true}}}, {"gone", false}}},
      {"spec", {{"containers", {{"resources", {{"requests", true}}}}}, {"nodeName", true}}},
      {"status", true},
      {"items", {{"metadata", {{"name", true}}}}},
      {"type", true},
      {"object", {{"metadata", true}}}};
  return rule;
}

void check_reader(const std::string& text) {
  nlohmann::json whole = nlohmann::json::parse(text, nullptr, false);
  auto read = weft::kube::read_json(text);
  weft::fuzz::check(read.ok() == !whole.is_discarded(), "read_json fails exactly where parse fails");
  if (read) weft::fuzz::check(read->dump() == whole.dump(), "read_json gives parse(text)");
  auto projected = weft::kube::read_json(text, keep());
  weft::fuzz::check(projected.ok() == !whole.is_discarded(), "a projected read fails exactly where parse fails");
  if (!projected) return;
  weft::kube::project(whole, keep());
  weft::fuzz::check(projected->dump() == whole.dump(), "a projected read gives project(parse(text))");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t split = data[0];
  const std::string body = weft::fuzz::text(data + 1, size - 1);
  size_t items = 0;
  auto meta = weft::kube::decode_list(body, [&](nlohmann::json&&) { ++items; });
  if (meta) weft::fuzz::check(meta->items == items, "ListMeta.items counts the items handed over");
  size_t projected_items = 0;
  auto projected = weft::kube::decode_list(body, [&](nlohmann::json&&) { ++projected_items; }, keep());
  weft::fuzz::check(projected.ok() == meta.ok(), "a projected list decodes where the whole one does");
  if (projected) weft::fuzz::check(projected_items == items, "a projected list hands over the same items");
  // Raw items: the list's items as text, each an object whose identity is key_of(item).
  std::vector<nlohmann::json> whole_items;
  (void)weft::kube::decode_list(body, [&](nlohmann::json&& item) { whole_items.push_back(std::move(item)); });
  size_t raw_items = 0;
  auto raw = weft::kube::decode_list_raw(body, [&](std::string_view text, weft::kube::ObjectIdentity&& id) {
    auto item = weft::kube::read_json(text);
    weft::fuzz::check(item.ok() && item->is_object(), "a raw item is the text of one object");
    weft::fuzz::check(raw_items < whole_items.size() && *item == whole_items[raw_items] &&
                          id.key() == weft::kube::key_of(*item),
                      "a raw item is the item the tree decoder gives, keyed as key_of keys it");
    ++raw_items;
  });
  bool all_objects = true;
  for (const auto& item : whole_items) all_objects = all_objects && item.is_object();
  weft::fuzz::check(raw.ok() == (meta.ok() && all_objects), "a raw list decodes where the whole one does, objects only");
  if (raw) weft::fuzz::check(raw_items == items, "a raw list hands over every item");
  check_reader(body);
  {
    weft::kube::WatchDecoder watch(nullptr, true);
    const size_t cut = body.empty() ? 0 : split % (body.size() + 1);
    auto on_event = [](weft::kube::WatchEvent&& e) {
      if (e.type == "ERROR") return true;
      auto object = weft::kube::read_json(e.raw);
      weft::fuzz::check(object.ok() && object->is_object() && e.identity.key() == weft::kube::key_of(*object),
                        "a raw watch event carries its object's text and identity");
      return true;
    };
    if (watch.feed(std::string_view(body).substr(0, cut), on_event))
      (void)watch.feed(std::string_view(body).substr(cut), on_event);
  }
  for (bool project : {false, true}) {
    weft::kube::WatchDecoder watch = project ? weft::kube::WatchDecoder(keep()) : weft::kube::WatchDecoder();
    const size_t cut = body.empty() ? 0 : split % (body.size() + 1);
    auto on_event = [](weft::kube::WatchEvent&&) { return true; };
    if (watch.feed(std::string_view(body).substr(0, cut), on_event))
      (void)watch.feed(std::string_view(body).substr(cut), on_event);
  }
  return 0;
}
