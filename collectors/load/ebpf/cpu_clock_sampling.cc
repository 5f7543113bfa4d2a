#include "collectors/load/ebpf/cpu_clock_sampling.h"

#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "collectors/load/ebpf/libbpf_log.h"

namespace weft::load {

namespace {

int open_cpu_clock(int cpu, int hz) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  // A fixed period in ns rather than attr.freq: no frequency adjustment, and not
  // limited by kernel.perf_event_max_sample_rate at open time.
  attr.sample_period = 1000000000ULL / static_cast<unsigned long long>(hz);
  attr.disabled = 1;  // enabled by libbpf once the program is attached
  return static_cast<int>(syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string perf_open_error(int cpu, int err) {
  std::string s = "perf_event_open(cpu-clock, cpu " + std::to_string(cpu) + "): " + std::strerror(err);
  if (err == EACCES || err == EPERM) s += " (needs CAP_PERFMON or kernel.perf_event_paranoid <= 0)";
  if (err == ENOENT || err == EOPNOTSUPP) s += " (kernel without software perf events)";
  return s;
}

}  // namespace

Result<CpuClockSampling> CpuClockSampling::attach(bpf_program* program, const std::vector<int>& cpus, int hz) {
  if (hz <= 0 || hz > 100000) return make_error("cpu-clock sampling: rate must be 1..100000 Hz, got " + std::to_string(hz));
  CpuClockSampling s;
  for (int cpu : cpus) {
    int fd = open_cpu_clock(cpu, hz);
    if (fd < 0) {
      int err = errno;
      return make_error("ebpf: " + perf_open_error(cpu, err), -err);
    }
    LibbpfLogCapture capture;
    bpf_link* link = bpf_program__attach_perf_event(program, fd);
    if (!link) {
      int err = errno;
      close(fd);
      std::string msg = "ebpf: attaching the sample program to cpu " + std::to_string(cpu) + "'s cpu-clock event: " +
                        std::strerror(err);
      if (!capture.lines().empty()) msg += "; libbpf: " + capture.tail(4);
      return make_error(msg, -err);
    }
    s.links_.push_back(link);
    s.event_fds_.push_back(fd);
  }
  return s;
}

Status CpuClockSampling::set_enabled(bool enabled) {
  for (int fd : event_fds_) {
    if (ioctl(fd, enabled ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) != 0) {
      return make_error(std::string("ebpf: ") + (enabled ? "enabling" : "disabling") +
                        " a cpu-clock event: " + std::strerror(errno), -errno);
    }
  }
  return {};
}

CpuClockSampling::~CpuClockSampling() { destroy(); }

CpuClockSampling::CpuClockSampling(CpuClockSampling&& other) noexcept
    : links_(std::move(other.links_)), event_fds_(std::move(other.event_fds_)) {
  other.links_.clear();
  other.event_fds_.clear();
}

CpuClockSampling& CpuClockSampling::operator=(CpuClockSampling&& other) noexcept {
  if (this != &other) {
    destroy();
    links_ = std::move(other.links_);
    event_fds_ = std::move(other.event_fds_);
    other.links_.clear();
    other.event_fds_.clear();
  }
  return *this;
}

void CpuClockSampling::destroy() {
  for (auto* l : links_) bpf_link__destroy(l);
  links_.clear();
  event_fds_.clear();
}

}  // namespace weft::load
