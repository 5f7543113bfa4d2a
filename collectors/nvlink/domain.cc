// GPU feature discovery's nvidia.com/gpu.clique rule over the GPUs' fabric info.
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectors/nvlink/nvlink.h"

namespace weft::nvlink {

bool GpuFabric::registered() const {
  return state == "completed" && error.empty() && !cluster_uuid.empty() &&
         cluster_uuid != "00000000-0000-0000-0000-000000000000";
}

std::string uuid_string(const unsigned char* b) {
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

namespace {

std::string gpu_states(const std::vector<GpuFabric>& gpus) {
  std::string out;
  for (const auto& g : gpus)
    out += fmt::format("{}GPU {}: {}{}", out.empty() ? "" : ", ", g.index, g.state, g.error.empty() ? "" : " (" + g.error + ")");
  return out;
}

}  // namespace

NvlinkReading domain_of(std::vector<GpuFabric> gpus) {
  NvlinkReading r;
  r.answered = true;
  std::map<std::string, std::vector<unsigned>> domains;   // "<uuid>.<clique>" -> GPUs
  for (const auto& g : gpus)
    if (g.registered()) domains[fmt::format("{}.{}", g.cluster_uuid, g.clique_id)].push_back(g.index);
  r.gpus = std::move(gpus);
  if (r.gpus.empty()) {
    r.reason = "NVML lists no GPU";
  } else if (domains.empty()) {
    r.reason = "no GPU is registered with an NVLink fabric (" + gpu_states(r.gpus) + ")";
  } else if (domains.size() > 1) {
    std::string split;
    for (const auto& [d, idx] : domains) split += fmt::format("{}{} on GPUs {}", split.empty() ? "" : "; ", d, fmt::join(idx, ","));
    r.reason = fmt::format("the GPUs are in {} NVLink cliques ({}): no single domain", domains.size(), split);
  } else {
    r.domain = domains.begin()->first;
  }
  return r;
}

}  // namespace weft::nvlink
