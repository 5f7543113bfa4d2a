// A LoadSource for simulated nodes that share one machine (the demo, tests): the node's
// load is the CPU time of its own cgroup v2 group, as a share of the CPU capacity the
// node is given, instead of the whole machine's /proc/stat. Reads cpu.stat usage_usec,
// which cgroup v2 keeps even where the cpu controller is not enabled.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "collectors/load/load.h"
#include "common/result.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

struct CgroupLoadOptions {
  std::string cgroup;        // --load-cgroup: a directory under the cgroup2 mount or a path inside it
  double cpus = 1;           // --load-cgroup-cpus: the node's CPU capacity in cores (> 0)
  std::string mount;         // cgroup2 mount; "" = from /proc/self/mounts
  std::string proc = "/proc";
  // The first sample() measures over this long so the daemon has a value at once.
  std::chrono::milliseconds first_window{1000};
  std::function<int64_t()> now_ns;   // CLOCK_MONOTONIC; null = the real clock
};

// One window of a cgroup's CPU time as the node's load (pure, for tests).
struct CgroupReading {
  int64_t at_ns = 0;
  uint64_t usage_ns = 0;
};
Result<LoadSnapshot> cgroup_window_snapshot(const std::string& dir, double cpus, const CgroupReading& previous,
                                            const CgroupReading& now, const weft::load::MemoryInfo& memory);

class CgroupLoadSource : public LoadSource {
 public:
  // Checks the group exists and holds cpu.stat; files must outlive the source.
  static Result<std::unique_ptr<CgroupLoadSource>> create(const weft::load::TextFiles& files,
                                                          CgroupLoadOptions options);
  Result<LoadSnapshot> sample() override;
  const std::string& dir() const { return dir_; }

 private:
  CgroupLoadSource(const weft::load::TextFiles& files, CgroupLoadOptions options, std::string dir);
  Result<CgroupReading> read_usage();

  const weft::load::TextFiles& files_;
  CgroupLoadOptions options_;
  std::string dir_;
  std::optional<CgroupReading> previous_;
};

// For `weft-agent run --load-cgroup PATH --load-cgroup-cpus N`: the real file system,
// the cgroup2 mount from /proc/self/mounts. why: what it measures, for the log.
Result<std::unique_ptr<LoadSource>> make_cgroup_load_source(const std::string& cgroup, double cpus,
                                                            std::string* why);

}  // namespace weft::agent
