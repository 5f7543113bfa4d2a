// RFC 3339 times: parse; what parses formats (UTC, to the second) and parses back to
// the same second.
#include <chrono>

#include "fuzz/fuzz.h"
#include "kube/time.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto t = weft::kube::parse_rfc3339(weft::fuzz::text(data, size));
  if (!t) return 0;
  auto back = weft::kube::parse_rfc3339(weft::kube::format_rfc3339(*t));
  weft::fuzz::check(back.ok(), "format_rfc3339(parse(x)) parses");
  weft::fuzz::check(std::chrono::floor<std::chrono::seconds>(*t) == *back, "the round trip keeps the second");
  return 0;
}
