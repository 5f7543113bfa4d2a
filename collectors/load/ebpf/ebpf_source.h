// eBPF backend: the load.bpf.c programs attached to raw tracepoints (and, in the
// sampled mode, to per-CPU cpu-clock perf events); counters are read from their per-CPU
// maps on demand. See EbpfOptions for the ways CPU time is taken.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectors/load/ebpf/ebpf_options.h"
#include "collectors/load/source.h"
#include "collectors/load/text_files.h"

namespace weft::load {

struct EbpfPrograms;  // the loaded object and its attachments (ebpf_source.cc)

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
  Status unwatch_cgroup(const std::string& path) override;
  bool attributes_cgroups() const override { return true; }
  Result<LoadCounters> read() override;
  std::string detail() const override;

  // How CPU busy time is taken: "tick", "sampled" or "switch".
  std::string cpu_method() const;
  // The loaded programs' names and fds (attached or duty-cycled), e.g. for run-time stats.
  std::vector<std::pair<std::string, int>> program_fds() const;

 private:
  EbpfSource(const TextFiles& files, std::string mount, EbpfOptions options, std::unique_ptr<EbpfPrograms> programs,
             int possible_cpus);
  const TextFiles& files_;
  std::string mount_;
  EbpfOptions options_;
  std::unique_ptr<EbpfPrograms> programs_;
  int possible_cpus_;
  struct Watched {
    uint32_t slot = 0;    // in cgroup_busy
    uint64_t id = 0;      // key in `watched` (the group may be gone when it is unwatched)
  };
  std::map<std::string, Watched> slots_;  // watched path -> its slot
  std::vector<uint32_t> free_slots_;      // given back by unwatch_cgroup
  uint32_t next_slot_ = 0;
};

}  // namespace weft::load
