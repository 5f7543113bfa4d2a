#include "collectors/load/procfs/procfs_source.h"

#include <unistd.h>

#include <algorithm>
#include <set>

#include "collectors/load/cgroup.h"
#include "collectors/load/procfs_parse.h"

namespace weft::load {

ProcfsSource::ProcfsSource(const TextFiles& files, std::string cgroup2_mount, ProcfsPaths paths)
    : files_(files), mount_(std::move(cgroup2_mount)), paths_(std::move(paths)) {
  long hz = ::sysconf(_SC_CLK_TCK);
  ns_per_tick_ = static_cast<uint64_t>(1000000000L / (hz > 0 ? hz : 100));
}

Status ProcfsSource::watch_cgroup(const std::string& path) {
  auto dir = resolve_cgroup_dir(files_, mount_, path);
  if (!dir) return dir.error();
  cgroups_[path] = *dir;
  return {};
}

Result<LoadCounters> ProcfsSource::read() {
  LoadCounters c;
  c.at_ns = monotonic_now_ns();
  auto stat = files_.read(paths_.proc + "/stat");
  if (!stat) return stat.error();
  auto cpus = parse_proc_stat(*stat, ns_per_tick_);
  if (!cpus) return wrap(cpus.error(), paths_.proc + "/stat");
  // /proc/stat lists online CPUs only; keep the order stable for window arithmetic.
  c.cpus = std::move(*cpus);
  std::sort(c.cpus.begin(), c.cpus.end(), [](const CpuCounter& a, const CpuCounter& b) { return a.cpu < b.cpu; });

  auto meminfo = files_.read(paths_.proc + "/meminfo");
  if (!meminfo) return meminfo.error();
  auto mem = parse_meminfo(*meminfo);
  if (!mem) return mem.error();
  c.memory = *mem;

  // PSI is absent when the kernel runs with psi=0; then these stay unknown.
  if (auto cpu_psi = files_.read(paths_.proc + "/pressure/cpu")) {
    if (auto ns = parse_pressure_some_ns(*cpu_psi)) c.cpu_pressure_some_ns = *ns;
  }
  if (auto mem_psi = files_.read(paths_.proc + "/pressure/memory")) {
    if (auto ns = parse_pressure_some_ns(*mem_psi)) c.reclaim_stall_ns = *ns;
  }

  for (const auto& [path, dir] : cgroups_) {
    auto text = files_.read(dir + "/cpu.stat");
    if (!text) return wrap(text.error(), "cgroup " + path);
    auto ns = parse_cgroup_usage_ns(*text);
    if (!ns) return wrap(ns.error(), dir);
    c.cgroup_busy_ns[path] = *ns;
  }
  return c;
}

}  // namespace weft::load
