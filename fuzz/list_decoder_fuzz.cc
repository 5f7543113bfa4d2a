// The API's list responses (streamed item by item) and watch streams (one JSON event a
// line, in chunks split anywhere): the first byte picks where the watch body splits.
#include <nlohmann/json.hpp>

#include "fuzz/fuzz.h"
#include "kube/client/client.h"
#include "kube/client/list_decoder.h"
#include "kube/client/watch_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t split = data[0];
  const std::string body = weft::fuzz::text(data + 1, size - 1);
  size_t items = 0;
  auto meta = weft::kube::decode_list(body, [&](nlohmann::json&&) { ++items; });
  if (meta) weft::fuzz::check(meta->items == items, "ListMeta.items counts the items handed over");
  weft::kube::WatchDecoder watch;
  const size_t cut = body.empty() ? 0 : split % (body.size() + 1);
  auto on_event = [](weft::kube::WatchEvent&&) { return true; };
  if (watch.feed(std::string_view(body).substr(0, cut), on_event))
    (void)watch.feed(std::string_view(body).substr(cut), on_event);
  return 0;
}
