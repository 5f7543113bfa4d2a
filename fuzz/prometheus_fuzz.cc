// Prometheus /api/v1/query responses (instant vectors), as the descheduler's load
// source reads them; the first byte picks the join labels (a node's or a pod's series).
#include "descheduler/core/load.h"
#include "fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::vector<std::string> labels =
      data[0] % 2 ? std::vector<std::string>{"node"} : std::vector<std::string>{"namespace", "pod"};
  auto v = weft::descheduler::parse_prometheus_vector(weft::fuzz::text(data + 1, size - 1), labels);
  if (!v) return 0;
  std::map<std::string, weft::descheduler::ResourceResults> r{{"cpu", {*v, *v}}, {"memory", {*v, *v}}};
  weft::descheduler::LoadReport report = weft::descheduler::join_prometheus(r, "fuzz");
  weft::descheduler::join_pod_usage(*v, *v, *v, *v, report);
  return 0;
}
