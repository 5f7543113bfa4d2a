// Prometheus /api/v1/query responses (instant vectors), as the descheduler's load
// source reads them; the first byte picks the join label.
#include "descheduler/core/load.h"
#include "fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string label = data[0] % 2 ? "node" : "instance";
  auto v = weft::descheduler::parse_prometheus_vector(weft::fuzz::text(data + 1, size - 1), label);
  if (!v) return 0;
  weft::descheduler::PrometheusResults r{*v, *v, *v, *v};
  (void)weft::descheduler::join_prometheus(r, "fuzz");
  return 0;
}
