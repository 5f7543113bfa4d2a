// eBPF backend: the load.bpf.c programs attached to raw tracepoints; counters are
// read from their per-CPU maps on demand.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "collectors/load/source.h"
#include "collectors/load/text_files.h"

struct weft_load;

namespace weft::load {

struct EbpfOptions {
  std::string proc = "/proc";
  std::string cpu_online = "/sys/devices/system/cpu/online";
  // false: no run-queue latency (the wakeup programs stay unloaded), less overhead
  // under context-switch storms; LoadCounters::runq_buckets is then empty.
  bool runq_latency = true;
};

class EbpfSource : public LoadSource {
 public:
  // Opens, loads (verifier) and attaches the programs. files must outlive the source.
  static Result<std::unique_ptr<EbpfSource>> create(const TextFiles& files, std::string cgroup2_mount,
                                                    EbpfOptions options = {});
  ~EbpfSource() override;
  EbpfSource(const EbpfSource&) = delete;
  EbpfSource& operator=(const EbpfSource&) = delete;

  std::string name() const override { return "ebpf"; }
  Status watch_cgroup(const std::string& path) override;
  Result<LoadCounters> read() override;

 private:
  EbpfSource(const TextFiles& files, std::string mount, EbpfOptions options, weft_load* skel, int possible_cpus);
  const TextFiles& files_;
  std::string mount_;
  EbpfOptions options_;
  weft_load* skel_;
  int possible_cpus_;
  std::map<std::string, uint32_t> slots_;  // watched path -> cgroup_busy slot
};

}  // namespace weft::load
