// A BPF program run by a software cpu-clock perf event on each CPU at a fixed rate:
// perf_event_open(PERF_COUNT_SW_CPU_CLOCK, pid -1, cpu N) per CPU, then
// bpf_program__attach_perf_event. Needs CAP_PERFMON (or perf_event_paranoid <= 0) for
// the CPU-wide events, besides what loading the program needs.
#pragma once

#include <vector>

#include "common/result.h"

struct bpf_link;
struct bpf_program;

namespace weft::load {

class CpuClockSampling {
 public:
  // One event per CPU in `cpus`, each running `program` hz times a second.
  static Result<CpuClockSampling> attach(bpf_program* program, const std::vector<int>& cpus, int hz);
  CpuClockSampling() = default;
  ~CpuClockSampling();
  CpuClockSampling(CpuClockSampling&& other) noexcept;
  CpuClockSampling& operator=(CpuClockSampling&& other) noexcept;
  CpuClockSampling(const CpuClockSampling&) = delete;
  CpuClockSampling& operator=(const CpuClockSampling&) = delete;

  size_t size() const { return links_.size(); }
  // Stops or restarts the events (PERF_EVENT_IOC_DISABLE/ENABLE): a stopped event
  // costs nothing, and the program stays attached.
  Status set_enabled(bool enabled);

 private:
  void destroy();
  std::vector<bpf_link*> links_;  // each owns its perf event fd
  std::vector<int> event_fds_;    // those fds (owned by the links)
};

}  // namespace weft::load
