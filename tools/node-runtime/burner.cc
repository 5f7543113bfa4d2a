#include "tools/node-runtime/burner.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace weft::noderuntime {

namespace {
int64_t clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

Status join_cgroup(const std::string& dir) {
  const std::string procs = dir + "/cgroup.procs";
  int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return make_error(procs + ": " + std::strerror(errno), errno);
  ssize_t n = ::write(fd, "0", 1);
  int e = errno;
  ::close(fd);
  if (n != 1) return make_error(procs + ": write: " + std::strerror(e), e);
  return {};
}

Status burn(const BurnOptions& o, const StopSignal& stop) {
  if (!(o.cores >= 0 && o.cores <= 1))
    return make_error(fmt::format("--cores {}: must be between 0 and 1 (start more burners for more)", o.cores));
  if (o.period.count() <= 0) return make_error("--period-ms: must be positive");
  if (!o.cgroup.empty()) {
    if (auto s = join_cgroup(o.cgroup); !s) return s;
  }
  const int64_t period_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(o.period).count();
  const auto budget_ns = static_cast<int64_t>(o.cores * static_cast<double>(period_ns));
  int64_t next = clock_ns(CLOCK_MONOTONIC);
  while (!stop.stopped()) {
    const int64_t period_end = next + period_ns;
    const int64_t cpu_target = clock_ns(CLOCK_THREAD_CPUTIME_ID) + budget_ns;
    while (budget_ns > 0 && clock_ns(CLOCK_THREAD_CPUTIME_ID) < cpu_target &&
           clock_ns(CLOCK_MONOTONIC) < period_end) {
    }
    next = period_end;
    const int64_t now = clock_ns(CLOCK_MONOTONIC);
    if (now < next) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(next - now));
    } else {
      next = now;   // fell behind (machine busy): do not try to catch up in a burst
    }
  }
  return {};
}

}  // namespace weft::noderuntime
