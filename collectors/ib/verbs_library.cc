#include "collectors/ib/verbs_library.h"

#include <cstring>
#include <string>

namespace weft::ib {

namespace {

constexpr const char* kLibrary = "libibverbs.so.1";

template <class F>
Status resolve(void* handle, const char* symbol, F& out) {
  dlerror();
  void* p = dlsym(handle, symbol);
  if (!p) {
    const char* why = dlerror();
    return make_error(std::string(kLibrary) + ": no symbol " + symbol + (why ? std::string(": ") + why : ""));
  }
  out = reinterpret_cast<F>(p);
  return {};
}

}  // namespace

Result<VerbsLibrary> VerbsLibrary::open() {
  // NODELETE: providers that libibverbs loaded stay valid for the life of the process.
  void* handle = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char* why = dlerror();
    return make_error(std::string("cannot load ") + kLibrary + ": " + (why ? why : "unknown dlopen error"));
  }
  VerbsLibrary lib;
  lib.handle_.reset(handle);
  for (auto step : {resolve(handle, "ibv_get_device_list", lib.get_device_list),
                    resolve(handle, "ibv_free_device_list", lib.free_device_list),
                    resolve(handle, "ibv_get_device_name", lib.get_device_name),
                    resolve(handle, "ibv_open_device", lib.open_device),
                    resolve(handle, "ibv_close_device", lib.close_device),
                    resolve(handle, "ibv_query_device", lib.query_device),
                    resolve(handle, "ibv_query_gid", lib.query_gid),
                    resolve(handle, "ibv_query_port", lib.legacy_query_port_)}) {
    if (!step) return step.error();
  }
  return lib;
}

int VerbsLibrary::query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr) const {
  if (verbs_context* v = verbs_get_ctx_op(context, query_port)) return v->query_port(context, port, attr, sizeof(*attr));
  std::memset(attr, 0, sizeof(*attr));
  return legacy_query_port_(context, port, attr);
}

}  // namespace weft::ib
