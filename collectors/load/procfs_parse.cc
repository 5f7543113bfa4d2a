#include "collectors/load/procfs_parse.h"

#include <charconv>
#include <sstream>

#include "collectors/load/load.h"

namespace weft::load {

namespace {

bool parse_u64(std::string_view s, uint64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

Result<std::vector<CpuCounter>> parse_proc_stat(const std::string& text, uint64_t ns_per_tick) {
  std::vector<CpuCounter> cpus;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    lineno++;
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] == ' ') continue;  // skip the "cpu " sum
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    uint64_t cpu_index = 0;
    if (!parse_u64(std::string_view(name).substr(3), cpu_index)) {
      return make_error("/proc/stat line " + std::to_string(lineno) + ": bad CPU name '" + name + "'");
    }
    uint64_t v[8] = {};
    int n = 0;
    std::string tok;
    while (n < 8 && fields >> tok) {
      if (!parse_u64(tok, v[n])) {
        return make_error("/proc/stat line " + std::to_string(lineno) + ": field " + std::to_string(n + 1) +
                          " is not a number: '" + tok + "'");
      }
      n++;
    }
    if (n < 4) {
      return make_error("/proc/stat line " + std::to_string(lineno) + ": " + name + " has " + std::to_string(n) +
                        " fields, need at least 4");
    }
    // user nice system idle iowait irq softirq steal
    uint64_t busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    uint64_t idle = v[3] + v[4];
    cpus.push_back({static_cast<int>(cpu_index), busy * ns_per_tick, (busy + idle) * ns_per_tick, v[7] * ns_per_tick});
  }
  if (cpus.empty()) return make_error("/proc/stat: no cpuN lines");
  return cpus;
}

Result<MemoryInfo> read_meminfo(const TextFiles& files, const std::string& proc) {
  auto text = files.read(proc + "/meminfo");
  if (!text) return text.error();
  auto m = parse_meminfo(*text);
  if (!m) return wrap(m.error(), proc + "/meminfo");
  return m;
}

Result<MemoryInfo> parse_meminfo(const std::string& text) {
  MemoryInfo m;
  bool have_total = false, have_avail = false;
  std::istringstream in(text);
  std::string key, unit;
  uint64_t value = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    if (!(f >> key >> value)) continue;
    f >> unit;
    uint64_t bytes = unit == "kB" ? value * 1024 : value;
    if (key == "MemTotal:") {
      m.total_bytes = bytes;
      have_total = true;
    } else if (key == "MemAvailable:") {
      m.available_bytes = bytes;
      have_avail = true;
    }
  }
  if (!have_total) return make_error("/proc/meminfo: no MemTotal line");
  if (!have_avail) return make_error("/proc/meminfo: no MemAvailable line (kernel older than 3.14?)");
  return m;
}

Result<uint64_t> parse_pressure_some_ns(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("some ", 0) != 0) continue;
    auto pos = line.find("total=");
    if (pos == std::string::npos) return make_error("pressure file: 'some' line has no total=");
    uint64_t us = 0;
    auto num = std::string_view(line).substr(pos + 6);
    auto end = num.find_first_of(" \n");
    if (!parse_u64(num.substr(0, end), us)) return make_error("pressure file: bad total= in '" + line + "'");
    return us * 1000;
  }
  return make_error("pressure file: no 'some' line");
}

Result<uint64_t> parse_cgroup_usage_ns(const std::string& text) {
  std::istringstream in(text);
  std::string key;
  std::string value;
  while (in >> key >> value) {
    if (key != "usage_usec") continue;
    uint64_t us = 0;
    if (!parse_u64(value, us)) return make_error("cpu.stat: usage_usec is not a number: '" + value + "'");
    return us * 1000;
  }
  return make_error("cpu.stat: no usage_usec");
}

Result<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::string trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
  std::istringstream in(trimmed);
  std::string part;
  while (std::getline(in, part, ',')) {
    auto dash = part.find('-');
    uint64_t lo = 0, hi = 0;
    bool ok = dash == std::string::npos ? parse_u64(part, lo) && ((hi = lo), true)
                                        : parse_u64(std::string_view(part).substr(0, dash), lo) &&
                                              parse_u64(std::string_view(part).substr(dash + 1), hi);
    if (!ok || hi < lo || hi > 65535) return make_error("CPU list: bad range '" + part + "' in '" + trimmed + "'");
    for (uint64_t c = lo; c <= hi; c++) cpus.push_back(static_cast<int>(c));
  }
  if (cpus.empty()) return make_error("CPU list: empty");
  return cpus;
}

}  // namespace weft::load
