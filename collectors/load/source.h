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
  // Stops counting it (a pod that went); unknown paths are fine.
  virtual Status unwatch_cgroup(const std::string& path) = 0;
  // True when the backend counts watched groups' CPU time itself (eBPF) rather than
  // reading their cpu.stat, which a caller can then do as well.
  virtual bool attributes_cgroups() const { return false; }
  virtual Result<LoadCounters> read() = 0;
  // How this source measures, for the "why" of the choice; "" when nothing to add.
  virtual std::string detail() const { return ""; }
};

}  // namespace weft::load
