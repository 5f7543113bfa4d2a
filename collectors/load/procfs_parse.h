// Parsers for the procfs/cgroupfs text the procfs backend reads. Each names the file
// and line in its error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/load/counters.h"
#include "common/result.h"

namespace weft::load {

// /proc/stat "cpuN" lines: busy = user+nice+system+irq+softirq+steal (guest is inside
// user), idle = idle+iowait, steal apart too; ticks converted with ns_per_tick.
Result<std::vector<CpuCounter>> parse_proc_stat(const std::string& text, uint64_t ns_per_tick);

// /proc/meminfo MemTotal and MemAvailable.
Result<MemoryInfo> parse_meminfo(const std::string& text);

// /proc/pressure/{cpu,memory,io}: the "total=" microseconds of the "some" line, in ns.
Result<uint64_t> parse_pressure_some_ns(const std::string& text);

// cgroup v2 cpu.stat "usage_usec", in ns.
Result<uint64_t> parse_cgroup_usage_ns(const std::string& text);

// A CPU list as in /sys/devices/system/cpu/online: "0-3,8,10-11".
Result<std::vector<int>> parse_cpu_list(const std::string& text);

}  // namespace weft::load
