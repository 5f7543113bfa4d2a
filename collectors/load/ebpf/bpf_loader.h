// Loading and attaching a libbpf skeleton with the verifier's output kept: a rejected
// program becomes an error carrying the verifier's last lines, never an abort.
#pragma once

#include <string>

#include "common/result.h"

struct bpf_object_skeleton;

namespace weft::load {

// what: a name for messages, e.g. "load.bpf.o".
Status load_skeleton(bpf_object_skeleton* skeleton, const std::string& what);
Status attach_skeleton(bpf_object_skeleton* skeleton, const std::string& what);

}  // namespace weft::load
