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
  // Where waits come from: the scheduler's own stamp task->sched_info.last_queued
  // against this CPU's rq->clock at switch-in (no wakeup programs; needs
  // CONFIG_SCHED_INFO and CONFIG_FAIR_GROUP_SCHED, checked in the kernel's BTF), or
  // stamps by the sched_wakeup programs. Auto tries sched_info first and falls back
  // to wakeup when the kernel refuses it.
  enum class RunqMethod { Auto, SchedInfo, Wakeup };
  RunqMethod runq_method = RunqMethod::Auto;
};

// Whether the running kernel's BTF has what the sched_info method reads.
bool kernel_keeps_sched_info();

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
  std::string detail() const override;

 private:
  EbpfSource(const TextFiles& files, std::string mount, EbpfOptions options, weft_load* skel, int possible_cpus);
  const TextFiles& files_;
  std::string mount_;
  EbpfOptions options_;
  weft_load* skel_;
  int possible_cpus_;
  std::map<std::string, uint32_t> slots_;  // watched path -> cgroup_busy slot
  std::string runq_from_;                  // "sched_info", "wakeup" or "off"
};

}  // namespace weft::load
