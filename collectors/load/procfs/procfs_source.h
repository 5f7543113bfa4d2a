// Fallback backend: /proc/stat, /proc/meminfo, /proc/pressure/*, cgroup cpu.stat.
// No run-queue latency histogram (procfs has none); reclaim stall is memory PSI "some".
#pragma once

#include <map>
#include <string>

#include "collectors/load/source.h"
#include "collectors/load/text_files.h"

namespace weft::load {

struct ProcfsPaths {
  std::string proc = "/proc";
  std::string cpu_online = "/sys/devices/system/cpu/online";
};

class ProcfsSource : public LoadSource {
 public:
  // files must outlive the source. cgroup2_mount: where watch_cgroup() resolves paths.
  ProcfsSource(const TextFiles& files, std::string cgroup2_mount, ProcfsPaths paths = {});
  std::string name() const override { return "procfs"; }
  Status watch_cgroup(const std::string& path) override;
  Status unwatch_cgroup(const std::string& path) override {
    cgroups_.erase(path);
    return {};
  }
  Result<LoadCounters> read() override;

 private:
  const TextFiles& files_;
  std::string mount_;
  ProcfsPaths paths_;
  uint64_t ns_per_tick_;
  std::map<std::string, std::string> cgroups_;  // path as asked -> directory
};

}  // namespace weft::load
