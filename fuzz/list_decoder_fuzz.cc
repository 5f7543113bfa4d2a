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
  check_reader(body);
  for (bool project : {false, true}) {
    weft::kube::WatchDecoder watch = project ? weft::kube::WatchDecoder(keep()) : weft::kube::WatchDecoder();
    const size_t cut = body.empty() ? 0 : split % (body.size() + 1);
    auto on_event = [](weft::kube::WatchEvent&&) { return true; };
    if (watch.feed(std::string_view(body).substr(0, cut), on_event))
      (void)watch.feed(std::string_view(body).substr(cut), on_event);
  }
  return 0;
}
