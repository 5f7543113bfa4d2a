// The few NVML entry points and types the NVLink domain needs, declared from NVIDIA's
// documented NVML API (nvml.h is not needed at build time; the library is dlopen'ed).
#pragma once

namespace weft::nvlink::nvml {

using Return = int;                  // nvmlReturn_t
using Device = struct DeviceOpaque*;  // nvmlDevice_t
using FabricState = unsigned char;   // nvmlGpuFabricState_t

inline constexpr Return kSuccess = 0;           // NVML_SUCCESS
inline constexpr Return kNotSupported = 3;      // NVML_ERROR_NOT_SUPPORTED
inline constexpr int kUuidLength = 16;          // NVML_GPU_FABRIC_UUID_LEN

// NVML_GPU_FABRIC_STATE_*
inline constexpr FabricState kStateNotSupported = 0;
inline constexpr FabricState kStateNotStarted = 1;
inline constexpr FabricState kStateInProgress = 2;
inline constexpr FabricState kStateCompleted = 3;

// nvmlGpuFabricInfo_t (nvmlDeviceGetGpuFabricInfo).
struct FabricInfoV1 {
  unsigned char cluster_uuid[kUuidLength];
  Return status;                     // meaningful once state is completed
  unsigned int clique_id;
  FabricState state;
};

// nvmlGpuFabricInfo_v2_t (nvmlDeviceGetGpuFabricInfoV): a version first, a health mask last.
struct FabricInfoV2 {
  unsigned int version;
  unsigned char cluster_uuid[kUuidLength];
  Return status;
  unsigned int clique_id;
  FabricState state;
  unsigned int health_mask;
};
// nvmlGpuFabricInfo_v2: the struct's size with the version in the top byte.
inline constexpr unsigned int kFabricInfoV2Version = static_cast<unsigned int>(sizeof(FabricInfoV2)) | (2u << 24);

extern "C" {
using InitFn = Return (*)();                                        // nvmlInit_v2
using ShutdownFn = Return (*)();                                    // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                      // nvmlErrorString
using DeviceGetCountFn = Return (*)(unsigned int*);                 // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*); // nvmlDeviceGetHandleByIndex_v2
using FabricInfoV1Fn = Return (*)(Device, FabricInfoV1*);           // nvmlDeviceGetGpuFabricInfo
using FabricInfoVFn = Return (*)(Device, FabricInfoV2*);            // nvmlDeviceGetGpuFabricInfoV
}

}  // namespace weft::nvlink::nvml
