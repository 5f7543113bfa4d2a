// The weft.dev/load annotation: decode; what decodes encodes and decodes again to the
// same values (ratios to 2 decimals, times to the second); freshness never overflows.
#include <chrono>
#include <cmath>

#include "fuzz/fuzz.h"
#include "kube/load_annotation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto load = weft::kube::decode_load_annotation(weft::fuzz::text(data, size));
  if (!load) return 0;
  weft::fuzz::check(load->cpu >= 0 && load->cpu <= 1 && load->memory >= 0 && load->memory <= 1, "ratios in 0..1");
  const auto now = weft::kube::parse_rfc3339("2026-11-23T10:00:00Z").value();
  (void)weft::kube::check_load_fresh(*load, now, weft::kube::kDefaultLoadMaxAge);
  (void)weft::kube::check_load_fresh(*load, now, weft::kube::Duration::max());
  if (load->window_s > 1e15) return 0;   // beyond what llround can hold: not a window an agent writes
  auto back = weft::kube::decode_load_annotation(weft::kube::encode_load_annotation(*load));
  weft::fuzz::check(back.ok(), "encode(decode(x)) decodes");
  weft::fuzz::check(std::fabs(back->cpu - load->cpu) <= 0.005 + 1e-12 &&
                        std::fabs(back->memory - load->memory) <= 0.005 + 1e-12,
                    "ratios survive to 2 decimals");
  weft::fuzz::check(back->source == load->source, "source survives");
  using std::chrono::floor;
  using std::chrono::seconds;
  weft::fuzz::check(back->cpu_at == floor<seconds>(load->cpu_at) && back->memory_at == floor<seconds>(load->memory_at),
                    "times survive to the second");
  return 0;
}
