#include "collectors/load/ebpf_source.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "collectors/load/bpf_counters.h"
#include "collectors/load/bpf_loader.h"
#include "collectors/load/cgroup.h"
#include "collectors/load/procfs_parse.h"
#include "ebpf/load.skel.h"

namespace weft::load {

namespace {

constexpr int kReadAttempts = 8;

}  // namespace

namespace {

bool has_member(const btf* b, const char* type, const char* member) {
  int id = btf__find_by_name_kind(b, type, BTF_KIND_STRUCT);
  if (id <= 0) return false;
  const btf_type* t = btf__type_by_id(b, static_cast<uint32_t>(id));
  const btf_member* m = btf_members(t);
  for (int i = 0; i < btf_vlen(t); i++) {
    const char* name = btf__name_by_offset(b, m[i].name_off);
    if (name && std::strcmp(name, member) == 0) return true;
  }
  return false;
}

}  // namespace

bool kernel_keeps_sched_info() {
  btf* vmlinux = btf__load_vmlinux_btf();
  if (!vmlinux) return false;
  bool ok = has_member(vmlinux, "task_struct", "sched_info") && has_member(vmlinux, "sched_info", "last_queued") &&
            has_member(vmlinux, "sched_entity", "cfs_rq") && has_member(vmlinux, "cfs_rq", "rq");
  btf__free(vmlinux);
  return ok;
}

namespace {

// Opens, loads and attaches the programs with run-queue waits taken from `from`
// ("sched_info", "wakeup" or "off").
Result<weft_load*> open_programs(const std::string& from) {
  weft_load* skel = weft_load__open();
  if (!skel) return make_error("ebpf: opening the embedded load.bpf.o: " + std::string(std::strerror(errno)), errno);
  skel->rodata->runq_enabled = from != "off";
  skel->rodata->runq_sched_info = from == "sched_info";
  if (from != "wakeup") {
    bpf_program__set_autoload(skel->progs.weft_sched_wakeup, false);
    bpf_program__set_autoload(skel->progs.weft_sched_wakeup_new, false);
    // The 1 MB table of wait starts is only read on the wakeup path.
    bpf_map__set_max_entries(skel->maps.runq_start, 1);
  }
  if (auto st = load_skeleton(skel->skeleton, "load.bpf.o"); !st) {
    weft_load__destroy(skel);
    return st.error();
  }
  if (auto st = attach_skeleton(skel->skeleton, "load.bpf.o"); !st) {
    weft_load__destroy(skel);
    return st.error();
  }
  return skel;
}

}  // namespace

Result<std::unique_ptr<EbpfSource>> EbpfSource::create(const TextFiles& files, std::string cgroup2_mount,
                                                       EbpfOptions options) {
  int possible = libbpf_num_possible_cpus();
  if (possible <= 0) return make_error("ebpf: cannot count possible CPUs: " + std::string(std::strerror(-possible)));
  using Method = EbpfOptions::RunqMethod;
  std::string from = "wakeup";
  if (!options.runq_latency) {
    from = "off";
  } else if (options.runq_method == Method::SchedInfo ||
             (options.runq_method == Method::Auto && kernel_keeps_sched_info())) {
    from = "sched_info";
  }
  auto skel = open_programs(from);
  if (!skel && from == "sched_info" && options.runq_method == Method::Auto && skel.error().code != -EPERM) {
    spdlog::warn("load: run-queue waits from sched_info refused ({}); using sched_wakeup programs", skel.message());
    from = "wakeup";
    skel = open_programs(from);
  }
  if (!skel) return skel.error();
  std::unique_ptr<EbpfSource> source(new EbpfSource(files, std::move(cgroup2_mount), std::move(options), *skel, possible));
  source->runq_from_ = from;
  return source;
}

EbpfSource::EbpfSource(const TextFiles& files, std::string mount, EbpfOptions options, weft_load* skel,
                       int possible_cpus)
    : files_(files), mount_(std::move(mount)), options_(std::move(options)), skel_(skel), possible_cpus_(possible_cpus) {}

EbpfSource::~EbpfSource() { weft_load__destroy(skel_); }

std::string EbpfSource::detail() const {
  if (runq_from_ == "sched_info") return "run-queue waits from the scheduler's sched_info stamps";
  if (runq_from_ == "wakeup") return "run-queue waits from sched_wakeup programs";
  return "run-queue latency off";
}

Status EbpfSource::watch_cgroup(const std::string& path) {
  if (slots_.count(path)) return {};
  if (slots_.size() >= WEFT_MAX_WATCHED) {
    return make_error("--cgroup " + path + ": at most " + std::to_string(WEFT_MAX_WATCHED) + " cgroups can be watched");
  }
  auto dir = resolve_cgroup_dir(files_, mount_, path);
  if (!dir) return dir.error();
  auto id = cgroup_id(*dir);
  if (!id) return id.error();
  auto slot = static_cast<uint32_t>(slots_.size());
  std::vector<uint64_t> zeros(static_cast<size_t>(possible_cpus_), 0);
  if (bpf_map__update_elem(skel_->maps.cgroup_busy, &slot, sizeof slot, zeros.data(),
                           zeros.size() * sizeof(uint64_t), BPF_ANY) != 0) {
    return make_error("ebpf: clearing cgroup slot for " + path + ": " + std::strerror(errno), errno);
  }
  uint64_t key = *id;
  if (bpf_map__update_elem(skel_->maps.watched, &key, sizeof key, &slot, sizeof slot, BPF_ANY) != 0) {
    return make_error("ebpf: watching cgroup " + path + ": " + std::strerror(errno), errno);
  }
  slots_[path] = slot;
  // Tasks already running pick up the new slot at their next switch.
  skel_->bss->watch_count = static_cast<uint32_t>(slots_.size());
  return {};
}

Result<LoadCounters> EbpfSource::read() {
  LoadCounters c;
  // Without sysfs (a container without /sys) every possible CPU counts as online.
  Result<std::vector<int>> online = std::vector<int>{};
  if (auto online_text = files_.read(options_.cpu_online)) {
    online = parse_cpu_list(*online_text);
    if (!online) return wrap(online.error(), options_.cpu_online);
  } else {
    for (int cpu = 0; cpu < possible_cpus_; cpu++) online->push_back(cpu);
  }

  const size_t n = static_cast<size_t>(possible_cpus_);
  std::vector<weft_cpu_stats> first(n), second(n);
  std::map<std::string, WatchedCgroupValues> cgroups;
  int64_t now = 0;
  bool clean = false;
  const uint32_t zero = 0;
  for (int attempt = 0; attempt < kReadAttempts; attempt++) {
    if (bpf_map__lookup_elem(skel_->maps.cpu_stats, &zero, sizeof zero, first.data(), n * sizeof(weft_cpu_stats), 0)) {
      return make_error(std::string("ebpf: reading cpu_stats: ") + std::strerror(errno), errno);
    }
    now = monotonic_now_ns();
    for (const auto& [path, slot] : slots_) {
      auto& v = cgroups[path];
      v.slot = slot;
      v.per_cpu_ns.assign(n, 0);
      if (bpf_map__lookup_elem(skel_->maps.cgroup_busy, &slot, sizeof slot, v.per_cpu_ns.data(),
                               n * sizeof(uint64_t), 0)) {
        return make_error("ebpf: reading cgroup_busy for " + path + ": " + std::strerror(errno), errno);
      }
    }
    if (bpf_map__lookup_elem(skel_->maps.cpu_stats, &zero, sizeof zero, second.data(), n * sizeof(weft_cpu_stats), 0)) {
      return make_error(std::string("ebpf: reading cpu_stats: ") + std::strerror(errno), errno);
    }
    // A switch between the two copies may have moved time from the open interval into
    // busy_ns; read again rather than count it twice.
    if (same_generation(first, second)) {
      clean = true;
      break;
    }
  }
  if (clean) {
    fill_counters(first, *online, cgroups, now, c);
  } else {
    // Switching too often to get an unchanged pair: the latest copy, timed after it.
    fill_counters(second, *online, cgroups, monotonic_now_ns(), c);
  }
  if (!options_.runq_latency) {
    c.runq_buckets.reset();
    c.runq_sum_ns.reset();
  }

  auto meminfo = files_.read(options_.proc + "/meminfo");
  if (!meminfo) return meminfo.error();
  auto mem = parse_meminfo(*meminfo);
  if (!mem) return mem.error();
  c.memory = *mem;
  if (auto cpu_psi = files_.read(options_.proc + "/pressure/cpu")) {
    if (auto ns = parse_pressure_some_ns(*cpu_psi)) c.cpu_pressure_some_ns = *ns;
  }
  return c;
}

}  // namespace weft::load
