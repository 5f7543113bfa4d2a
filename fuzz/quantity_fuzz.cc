// Resource quantities ("500m", "1.5Gi", "1e3"): parse, and what parses formats back to
// the same amount.
#include <nlohmann/json.hpp>

#include "fuzz/fuzz.h"
#include "kube/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string s = weft::fuzz::text(data, size);
  auto q = weft::kube::parse_quantity_milli(std::string_view(s));
  if (q.ok() && *q >= 0) {
    auto again = weft::kube::parse_quantity_milli(weft::kube::format_quantity(*q));
    weft::fuzz::check(again.ok() && *again == *q, "format_quantity(parse(x)) parses to the same amount");
  }
  auto doc = nlohmann::json::parse(s, nullptr, false);
  if (!doc.is_discarded()) (void)weft::kube::parse_resource_list(doc);
  return 0;
}
