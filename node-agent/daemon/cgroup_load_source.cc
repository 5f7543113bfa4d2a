#include "node-agent/daemon/cgroup_load_source.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>


namespace weft::agent {

Result<LoadSnapshot> cgroup_window_snapshot(const std::string& dir, double cpus, const CgroupReading& previous,
                                            const CgroupReading& now, const weft::load::MemoryInfo& memory) {
  if (cpus <= 0) return make_error(fmt::format("cgroup {}: CPU capacity {} is not positive", dir, cpus));
  if (now.at_ns <= previous.at_ns) return make_error("cgroup " + dir + ": empty window (clock did not advance)");
  if (now.usage_ns < previous.usage_ns)
    return make_error("cgroup " + dir + ": cpu.stat usage_usec went backwards (group recreated?)");
  const double wall_s = static_cast<double>(now.at_ns - previous.at_ns) / 1e9;
  const double busy_cores = static_cast<double>(now.usage_ns - previous.usage_ns) / 1e9 / wall_s;
  LoadSnapshot s;
  s.source = "cgroup";
  // Bursts above the nominal capacity (the group is not capped) count as fully busy.
  s.cpu = std::clamp(busy_cores / cpus, 0.0, 1.0);
  s.cpus = {s.cpu};
  s.memory = memory.total_bytes == 0
                 ? 0.0
                 : 1.0 - static_cast<double>(memory.available_bytes) / static_cast<double>(memory.total_bytes);
  s.window_seconds = wall_s;
  s.json = {{"source", "cgroup"},
            {"cpu", s.cpu},
            {"cpus", s.cpus},
            {"memory", s.memory},
            {"window_s", wall_s},
            {"runq_latency_p99_s", nullptr},
            {"reclaim_stall_s", nullptr},
            // Memory is the machine's: the simulated nodes share it and cgroup v2 here
            // may have no memory controller to split it.
            {"cgroup", {{"path", dir}, {"capacity_cpus", cpus}, {"busy_cores", busy_cores}, {"memory_scope", "host"}}}};
  return s;
}

CgroupLoadSource::CgroupLoadSource(const weft::load::TextFiles& files, CgroupLoadOptions options, std::string dir)
    : files_(files), options_(std::move(options)), dir_(std::move(dir)) {
  if (!options_.now_ns) options_.now_ns = weft::load::monotonic_now_ns;
}

Result<std::unique_ptr<CgroupLoadSource>> CgroupLoadSource::create(const weft::load::TextFiles& files,
                                                                   CgroupLoadOptions options) {
  if (!(options.cpus > 0))
    return make_error(fmt::format("--load-cgroup-cpus {}: must be a positive number of cores", options.cpus));
  std::string mount = options.mount;
  if (mount.empty()) {
    auto found = weft::load::cgroup2_mount(files);
    if (!found) return wrap(found.error(), "--load-cgroup");
    mount = *found;
  }
  auto dir = weft::load::resolve_cgroup_dir(files, mount, options.cgroup);
  if (!dir) return dir.error();
  return std::unique_ptr<CgroupLoadSource>(new CgroupLoadSource(files, std::move(options), *dir));
}

Result<CgroupReading> CgroupLoadSource::read_usage() {
  auto ns = weft::load::cgroup_cpu_usage_ns(files_, dir_);
  if (!ns) return wrap(ns.error(), "cgroup load");
  return CgroupReading{options_.now_ns(), *ns};
}

Result<LoadSnapshot> CgroupLoadSource::sample() {
  if (!previous_) {
    auto first = read_usage();
    if (!first) return first.error();
    previous_ = *first;
    std::this_thread::sleep_for(options_.first_window);
  }
  auto now = read_usage();
  if (!now) return now.error();
  auto memory = weft::load::read_meminfo(files_, options_.proc);
  if (!memory) return wrap(memory.error(), "cgroup load");
  auto s = cgroup_window_snapshot(dir_, options_.cpus, *previous_, *now, *memory);
  // A failed window (e.g. the group was recreated) restarts from this reading.
  previous_ = *now;
  return s;
}

namespace {
// Owns the host files the source reads through.
class HostCgroupLoadSource : public LoadSource {
 public:
  Status init(CgroupLoadOptions options) {
    auto made = CgroupLoadSource::create(files_, std::move(options));
    if (!made) return made.error();
    inner_ = std::move(made.value());
    return {};
  }
  Result<LoadSnapshot> sample() override { return inner_->sample(); }
  const std::string& dir() const { return inner_->dir(); }

 private:
  weft::load::HostFiles files_;
  std::unique_ptr<CgroupLoadSource> inner_;
};
}  // namespace

Result<std::unique_ptr<LoadSource>> make_cgroup_load_source(const std::string& cgroup, double cpus,
                                                            std::string* why) {
  auto source = std::make_unique<HostCgroupLoadSource>();
  CgroupLoadOptions options;
  options.cgroup = cgroup;
  options.cpus = cpus;
  if (auto s = source->init(std::move(options)); !s) return s.error();
  if (why)
    *why = fmt::format("--load-cgroup: the CPU time of cgroup {} over a capacity of {} cores is this node's load "
                       "(simulated nodes sharing one machine); memory is the machine's",
                       source->dir(), cpus);
  return std::unique_ptr<LoadSource>(std::move(source));
}

}  // namespace weft::agent
