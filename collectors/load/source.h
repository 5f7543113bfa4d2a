// Where load counters come from: the eBPF programs or procfs. Both give the same
// LoadCounters so the window arithmetic is shared.
#pragma once

#include <string>

#include "collectors/load/counters.h"
#include "common/result.h"

namespace weft::load {

class LoadSource {
 public:
  virtual ~LoadSource() = default;
  virtual std::string name() const = 0;  // "ebpf" or "procfs"
  // Starts counting CPU time of this cgroup v2 group (and its descendants) under its path.
  virtual Status watch_cgroup(const std::string& path) = 0;
  virtual Result<LoadCounters> read() = 0;
  // How this source measures, for the "why" of the choice; "" when nothing to add.
  virtual std::string detail() const { return ""; }
};

}  // namespace weft::load
