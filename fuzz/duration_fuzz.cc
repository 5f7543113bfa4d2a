// Go durations: parse; what parses formats (Go's Duration.String) and parses back to
// exactly the same duration.
#include "fuzz/fuzz.h"
#include "kube/duration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto d = weft::kube::parse_duration(weft::fuzz::text(data, size));
  if (!d) return 0;
  auto back = weft::kube::parse_duration(weft::kube::format_duration(*d));
  weft::fuzz::check(back.ok() && *back == *d, "parse(format(parse(x))) == parse(x)");
  return 0;
}
