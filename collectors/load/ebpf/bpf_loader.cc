#include "collectors/load/ebpf/bpf_loader.h"

#include <bpf/libbpf.h>

#include <cstring>

#include "collectors/load/ebpf/libbpf_log.h"

namespace weft::load {

namespace {

std::string describe(int err) {
  int e = err < 0 ? -err : err;
  std::string s = std::strerror(e);
  if (e == EPERM) s += " (needs root or CAP_BPF+CAP_PERFMON)";
  return s;
}

}  // namespace

Status load_skeleton(bpf_object_skeleton* skeleton, const std::string& what) {
  LibbpfLogCapture capture;
  int err = bpf_object__load_skeleton(skeleton);
  if (err == 0) return {};
  std::string msg = "ebpf: loading " + what + ": " + describe(err);
  if (!capture.lines().empty()) msg += "; libbpf/verifier: " + capture.tail();
  return make_error(msg, err);
}

Status attach_skeleton(bpf_object_skeleton* skeleton, const std::string& what) {
  LibbpfLogCapture capture;
  int err = bpf_object__attach_skeleton(skeleton);
  if (err == 0) return {};
  std::string msg = "ebpf: attaching " + what + ": " + describe(err);
  if (!capture.lines().empty()) msg += "; libbpf: " + capture.tail(4);
  return make_error(msg, err);
}

}  // namespace weft::load
