// NvlinkSource over libnvidia-ml, opened with dlopen.
#include <dlfcn.h>

#include <fmt/format.h>

#include "collectors/nvlink/nvlink.h"
#include "collectors/nvlink/nvml_api.h"

namespace weft::nvlink {

namespace {

std::string state_name(nvml::FabricState s) {
  switch (s) {
    case nvml::kStateNotSupported: return "not supported";
    case nvml::kStateNotStarted: return "not started";
    case nvml::kStateInProgress: return "in progress";
    case nvml::kStateCompleted: return "completed";
    default: return fmt::format("state {}", s);
  }
}

class NvmlSource final : public NvlinkSource {
 public:
  explicit NvmlSource(std::string library) : library_(std::move(library)) {}
  ~NvmlSource() override {
    if (initialised_) shutdown_();
    if (handle_) dlclose(handle_);
  }
  NvmlSource(const NvmlSource&) = delete;
  NvmlSource& operator=(const NvmlSource&) = delete;

  NvlinkReading read() override {
    NvlinkReading r;
    if (std::string why = start(); !why.empty()) {
      r.reason = why;
      return r;
    }
    unsigned count = 0;
    if (auto ret = count_(&count); ret != nvml::kSuccess) {
      r.reason = "nvmlDeviceGetCount_v2: " + error(ret);
      return r;
    }
    std::vector<GpuFabric> gpus;
    for (unsigned i = 0; i < count; ++i) gpus.push_back(gpu(i));
    return domain_of(std::move(gpus));
  }

 private:
  // Opens the library and initialises NVML once; "" when ready, else why not.
  std::string start() {
    if (initialised_) return "";
    if (!handle_) {
      handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle_) {
        const char* why = dlerror();
        return "NVML not loaded: " + std::string(why ? why : library_ + ": dlopen failed");
      }
      for (std::string missing : {resolve("nvmlInit_v2", init_), resolve("nvmlShutdown", shutdown_),
                                  resolve("nvmlDeviceGetCount_v2", count_),
                                  resolve("nvmlDeviceGetHandleByIndex_v2", handle_by_index_)}) {
        if (missing.empty()) continue;
        dlclose(handle_);
        handle_ = nullptr;
        return missing;
      }
      resolve("nvmlErrorString", error_string_);
      resolve("nvmlDeviceGetGpuFabricInfoV", fabric_v_);
      resolve("nvmlDeviceGetGpuFabricInfo", fabric_v1_);
    }
    if (auto ret = init_(); ret != nvml::kSuccess) return "nvmlInit_v2: " + error(ret);
    initialised_ = true;
    return "";
  }

  template <class F>
  std::string resolve(const char* symbol, F& out) {
    out = reinterpret_cast<F>(dlsym(handle_, symbol));
    return out ? "" : library_ + ": no symbol " + symbol;
  }

  std::string error(nvml::Return ret) const {
    const char* text = error_string_ ? error_string_(ret) : nullptr;
    return text ? fmt::format("{} ({})", text, ret) : fmt::format("NVML error {}", ret);
  }

  GpuFabric gpu(unsigned index) {
    GpuFabric g;
    g.index = index;
    nvml::Device device = nullptr;
    if (auto ret = handle_by_index_(index, &device); ret != nvml::kSuccess) {
      g.state = "unknown";
      g.error = "nvmlDeviceGetHandleByIndex_v2: " + error(ret);
      return g;
    }
    // The versioned call first; an older driver has only the first one, or refuses version 2.
    nvml::Return ret = nvml::kNotSupported;
    nvml::FabricInfoV2 v2{};
    bool have_v2 = false;
    if (fabric_v_) {
      v2.version = nvml::kFabricInfoV2Version;
      ret = fabric_v_(device, &v2);
      have_v2 = ret == nvml::kSuccess;
    }
    nvml::FabricInfoV1 v1{};
    if (!have_v2 && fabric_v1_ && (!fabric_v_ || ret != nvml::kNotSupported)) ret = fabric_v1_(device, &v1);
    if (ret == nvml::kNotSupported) {
      g.state = state_name(nvml::kStateNotSupported);
    } else if (ret != nvml::kSuccess) {
      g.state = "unknown";
      g.error = "GPU fabric info: " + error(ret);
    } else if (have_v2) {
      fill(g, v2.state, v2.status, v2.cluster_uuid, v2.clique_id);
    } else {
      fill(g, v1.state, v1.status, v1.cluster_uuid, v1.clique_id);
    }
    return g;
  }

  void fill(GpuFabric& g, nvml::FabricState state, nvml::Return status, const unsigned char* uuid, unsigned clique) {
    g.state = state_name(state);
    if (state != nvml::kStateCompleted) return;
    if (status != nvml::kSuccess) g.error = "registration status: " + error(status);
    g.cluster_uuid = uuid_string(uuid);
    g.clique_id = clique;
  }

  std::string library_;
  void* handle_ = nullptr;
  bool initialised_ = false;
  nvml::InitFn init_ = nullptr;
  nvml::ShutdownFn shutdown_ = nullptr;
  nvml::ErrorStringFn error_string_ = nullptr;
  nvml::DeviceGetCountFn count_ = nullptr;
  nvml::DeviceGetHandleByIndexFn handle_by_index_ = nullptr;
  nvml::FabricInfoVFn fabric_v_ = nullptr;
  nvml::FabricInfoV1Fn fabric_v1_ = nullptr;
};

}  // namespace

std::unique_ptr<NvlinkSource> make_nvml_source(std::string library) {
  return std::make_unique<NvmlSource>(std::move(library));
}

}  // namespace weft::nvlink
