// A stand-in for libnvidia-ml.so.1 with the entry points the NVLink source uses, written
// from NVIDIA's documented NVML API (not from weft's declarations). Loaded by path in
// nvml_source_test. The GPUs come from FAKE_NVML_GPUS at nvmlInit_v2:
//   "<state>,<status>,<32 hex digits of cluster UUID>,<clique id>" per GPU, ';' between,
// FAKE_NVML_INIT: nvmlInit_v2's return value (default 0), FAKE_NVML_V1_ONLY=1: the
// versioned call refuses version 2 (NVML_ERROR_ARGUMENT_VERSION_MISMATCH) as an older
// driver's would.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Gpu {
  unsigned char state = 0;
  int status = 0;
  unsigned char uuid[16] = {};
  unsigned clique = 0;
};

std::vector<Gpu> gpus;
bool initialised = false;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

void load_gpus() {
  gpus.clear();
  const char* spec = std::getenv("FAKE_NVML_GPUS");
  for (const auto& g : split(spec ? spec : "", ';')) {
    auto f = split(g, ',');
    if (f.size() != 4 || f[2].size() != 32) continue;
    Gpu gpu;
    gpu.state = static_cast<unsigned char>(std::atoi(f[0].c_str()));
    gpu.status = std::atoi(f[1].c_str());
    for (int i = 0; i < 16; ++i) gpu.uuid[i] = static_cast<unsigned char>(std::stoul(f[2].substr(2 * i, 2), nullptr, 16));
    gpu.clique = static_cast<unsigned>(std::stoul(f[3]));
    gpus.push_back(gpu);
  }
}

struct FabricInfo {            // nvmlGpuFabricInfo_t
  unsigned char clusterUuid[16];
  int status;
  unsigned int cliqueId;
  unsigned char state;
};
struct FabricInfoV2 {          // nvmlGpuFabricInfo_v2_t
  unsigned int version;
  unsigned char clusterUuid[16];
  int status;
  unsigned int cliqueId;
  unsigned char state;
  unsigned int healthMask;
};

template <class Info>
void fill(const Gpu& g, Info* info) {
  std::memcpy(info->clusterUuid, g.uuid, 16);
  info->status = g.status;
  info->cliqueId = g.clique;
  info->state = g.state;
}

const Gpu* gpu_of(void* device) {
  const auto i = reinterpret_cast<size_t>(device) - 1;
  return initialised && i < gpus.size() ? &gpus[i] : nullptr;
}

}  // namespace

extern "C" {

int nvmlInit_v2() {
  const char* ret = std::getenv("FAKE_NVML_INIT");
  if (ret && std::atoi(ret) != 0) return std::atoi(ret);
  load_gpus();
  initialised = true;
  return 0;
}

int nvmlShutdown() {
  initialised = false;
  return 0;
}

const char* nvmlErrorString(int ret) {
  switch (ret) {
    case 0: return "Success";
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    case 25: return "Argument Version Mismatch";
    default: return "Unknown Error";
  }
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
  if (!initialised) return 1;
  *count = static_cast<unsigned>(gpus.size());
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (!initialised) return 1;
  if (index >= gpus.size()) return 2;
  *device = reinterpret_cast<void*>(static_cast<size_t>(index) + 1);
  return 0;
}

int nvmlDeviceGetGpuFabricInfo(void* device, FabricInfo* info) {
  const Gpu* g = gpu_of(device);
  if (!g) return 2;
  if (g->state == 0) return 3;   // a GPU without NVLink fabric support
  fill(*g, info);
  return 0;
}

int nvmlDeviceGetGpuFabricInfoV(void* device, FabricInfoV2* info) {
  const Gpu* g = gpu_of(device);
  if (!g) return 2;
  const char* v1_only = std::getenv("FAKE_NVML_V1_ONLY");
  if ((v1_only && std::strcmp(v1_only, "1") == 0) || info->version != (sizeof(FabricInfoV2) | (2u << 24))) return 25;
  if (g->state == 0) return 3;
  fill(*g, info);
  info->healthMask = 0;
  return 0;
}

}  // extern "C"
