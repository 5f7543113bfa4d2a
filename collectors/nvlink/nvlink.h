// collectors/nvlink — the node's multi-node NVLink domain, read from NVML when the NVIDIA
// driver's library is there. libnvidia-ml is opened with dlopen at run time, so weft builds
// and runs without it (no build-time dependency); a node without it gets its domain from
// GPU feature discovery's nvidia.com/gpu.clique label instead (node-agent).
//
//   auto source = make_nvml_source();          // dlopen("libnvidia-ml.so.1"), or a path
//   NvlinkReading r = source->read();
//   r.answered ? r.domain (maybe "": no domain) : fall back (r.reason says why NVML did not answer)
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace weft::nvlink {

// One GPU's nvmlGpuFabricInfo.
struct GpuFabric {
  unsigned index = 0;
  std::string state;          // "not supported" | "not started" | "in progress" | "completed" | "state N"
  std::string cluster_uuid;   // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lowercase)
  unsigned clique_id = 0;
  std::string error;          // the NVML call failed, or the registration completed with an error status
  // Registered with an NVLink fabric: state completed, status success, a non-zero cluster
  // UUID (GPU feature discovery's test for "fabric attached").
  bool registered() const;
};

struct NvlinkReading {
  bool answered = false;      // NVML loaded, initialised and listed the GPUs
  std::string domain;         // "<cluster UUID>.<clique id>"; "" when the node has none
  std::string reason;         // why no domain, or why NVML did not answer
  std::vector<GpuFabric> gpus;
};

// GPU feature discovery's rule: the registered GPUs must share one cluster UUID and one
// clique id, and the domain is "<cluster UUID>.<clique id>" (its nvidia.com/gpu.clique
// value); GPUs not registered are left out. Registered GPUs in several cliques or clusters
// give no domain, with the GPUs and their cliques named in the reason.
NvlinkReading domain_of(std::vector<GpuFabric> gpus);

// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" of 16 bytes, as GPU feature discovery prints it.
std::string uuid_string(const unsigned char* bytes16);

class NvlinkSource {
 public:
  virtual ~NvlinkSource() = default;
  virtual NvlinkReading read() = 0;
};

// NVML through dlopen(library): "libnvidia-ml.so.1" (the driver's soname) by default, or
// a path. The library is opened and nvmlInit_v2 called at the first read that can; a read
// that cannot (no library, no driver) says why and tries again next time.
std::unique_ptr<NvlinkSource> make_nvml_source(std::string library = "libnvidia-ml.so.1");

}  // namespace weft::nvlink
