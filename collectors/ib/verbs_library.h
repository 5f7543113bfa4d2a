// libibverbs, opened with dlopen when the verbs backend is asked for. Linking it would
// make every `weft-agent probe` map libibverbs and its two netlink libraries (~0.3 ms of
// the dynamic loader), though only RoCE ports and umad-less hosts need verbs.
#pragma once

#include <dlfcn.h>
#include <infiniband/verbs.h>

#include <memory>

#include "common/result.h"

namespace weft::ib {

class VerbsLibrary {
 public:
  // dlopen("libibverbs.so.1"); the error names the library and dlerror().
  static Result<VerbsLibrary> open();

  ibv_device** (*get_device_list)(int* num_devices) = nullptr;
  void (*free_device_list)(ibv_device** list) = nullptr;
  const char* (*get_device_name)(ibv_device* device) = nullptr;
  ibv_context* (*open_device)(ibv_device* device) = nullptr;
  int (*close_device)(ibv_context* context) = nullptr;
  int (*query_device)(ibv_context* context, ibv_device_attr* attr) = nullptr;
  int (*query_gid)(ibv_context* context, uint8_t port, int index, ibv_gid* gid) = nullptr;
  // What verbs.h's inline ibv_query_port does: the provider's extended call when it has
  // one, else the exported (legacy layout) one.
  int query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr) const;

 private:
  VerbsLibrary() = default;
  std::unique_ptr<void, int (*)(void*)> handle_{nullptr, dlclose};
  int (*legacy_query_port_)(ibv_context* context, uint8_t port, ibv_port_attr* attr) = nullptr;
};

}  // namespace weft::ib
