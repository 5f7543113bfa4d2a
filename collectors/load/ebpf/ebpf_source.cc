#include "collectors/load/ebpf/ebpf_source.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "collectors/load/ebpf/bpf_counters.h"
#include "collectors/load/ebpf/bpf_loader.h"
#include "collectors/load/cgroup.h"
#include "collectors/load/ebpf/cpu_clock_sampling.h"
#include "collectors/load/ebpf/duty_cycle.h"
#include "collectors/load/ebpf/kallsyms.h"
#include "collectors/load/procfs_parse.h"
#include "common/log.h"
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

// The loaded object and what is attached: raw tracepoints through the skeleton, the
// sample program on every CPU's cpu-clock event, and the duty-cycled run-queue program.
struct EbpfPrograms {
  weft_load* skel = nullptr;
  std::string runq_from;  // "sched_info", "wakeup" or "off"
  std::string cpu;        // "tick", "sampled" or "switch"
  int sample_hz = 0;      // tick: CONFIG_HZ; sampled: the cpu-clock rate
  CpuClockSampling sampling;
  int runq_link_fd = -1;  // sched_switch attached by the duty cycle, -1 while off
  std::unique_ptr<DutyCycle> runq_duty;
  ~EbpfPrograms() {
    runq_duty.reset();  // detaches sched_switch before the object goes
    sampling = CpuClockSampling();
    weft_load__destroy(skel);
  }
};

namespace {

// Without sysfs (a container without /sys) every possible CPU counts as online.
Result<std::vector<int>> online_cpus(const TextFiles& files, const std::string& path, int possible) {
  if (auto text = files.read(path)) {
    auto online = parse_cpu_list(*text);
    if (!online) return wrap(online.error(), path);
    return online;
  }
  std::vector<int> all;
  for (int cpu = 0; cpu < possible; cpu++) all.push_back(cpu);
  return all;
}

bool duty_cycled(const std::string& runq_from, const std::string& cpu, const EbpfOptions& options) {
  return cpu != "switch" && runq_from == "sched_info" && options.runq_on < options.runq_period;
}

// The tick mode's preconditions: the tick timer's function address, and no CPU whose
// tick stops while busy (nohz_full).
Result<uint64_t> tick_preconditions(const TextFiles& files, const EbpfOptions& options) {
  if (auto nohz_full = files.read(options.cpu_nohz_full)) {
    auto cpus = parse_cpu_list(*nohz_full);
    if (cpus && !cpus->empty()) {
      return make_error("tick mode: " + options.cpu_nohz_full + " lists CPUs whose tick stops while busy");
    }
  }
  auto kallsyms = files.read(options.proc + "/kallsyms");
  if (!kallsyms) return kallsyms.error();
  // 6.9+ names the tick's hrtimer function tick_nohz_handler, older kernels tick_sched_timer.
  return find_kernel_function(*kallsyms, {"tick_nohz_handler", "tick_sched_timer"}, options.proc + "/kallsyms");
}

// Opens, loads and attaches the programs with run-queue waits taken from `runq_from`
// ("sched_info", "wakeup" or "off"), CPU busy time from `cpu` ("tick", "sampled" or
// "switch"); tick_fn: the tick timer's function (tick mode).
Result<std::unique_ptr<EbpfPrograms>> attach_programs(const std::string& runq_from, const std::string& cpu,
                                                      uint64_t tick_fn, const EbpfOptions& options,
                                                      const std::vector<int>& cpus) {
  auto p = std::make_unique<EbpfPrograms>();
  p->skel = weft_load__open();
  if (!p->skel) return make_error("ebpf: opening the embedded load.bpf.o: " + std::string(std::strerror(errno)), errno);
  p->runq_from = runq_from;
  p->cpu = cpu;
  auto* skel = p->skel;
  skel->rodata->runq_enabled = runq_from != "off";
  skel->rodata->runq_sched_info = runq_from == "sched_info";
  skel->rodata->busy_from_switch = cpu == "switch";
  skel->rodata->tick_fn = tick_fn;
  if (options.sample_hz > 0) skel->rodata->sample_period_ns = 1000000000ULL / static_cast<uint64_t>(options.sample_hz);
  if (runq_from != "wakeup") {
    bpf_program__set_autoload(skel->progs.weft_sched_wakeup, false);
    bpf_program__set_autoload(skel->progs.weft_sched_wakeup_new, false);
    // The 1 MB table of wait starts is only read on the wakeup path.
    bpf_map__set_max_entries(skel->maps.runq_start, 1);
  }
  if (cpu != "sampled") bpf_program__set_autoload(skel->progs.weft_cpu_sample, false);
  if (cpu != "tick") bpf_program__set_autoload(skel->progs.weft_tick, false);
  if (cpu != "switch" && runq_from == "off") bpf_program__set_autoload(skel->progs.weft_sched_switch, false);
  const bool duty = duty_cycled(runq_from, cpu, options);
  if (duty) bpf_program__set_autoattach(skel->progs.weft_sched_switch, false);
  if (auto st = load_skeleton(skel->skeleton, "load.bpf.o"); !st) return st.error();
  if (cpu == "tick") {
    if (!skel->kconfig->CONFIG_HZ) {
      return make_error("tick mode: CONFIG_HZ unknown (libbpf found no /proc/config.gz or /boot/config-$(uname -r))");
    }
    p->sample_hz = static_cast<int>(skel->kconfig->CONFIG_HZ);
  }
  if (auto st = attach_skeleton(skel->skeleton, "load.bpf.o"); !st) return st.error();
  if (cpu == "sampled") {
    auto s = CpuClockSampling::attach(skel->progs.weft_cpu_sample, cpus, options.sample_hz);
    if (!s) return s.error();
    p->sampling = std::move(*s);
    p->sample_hz = options.sample_hz;
  }
  if (duty) {
    // Plain bpf() calls, not libbpf's attach: they run on the duty-cycle thread, and
    // libbpf's log callback is process-wide.
    EbpfPrograms* raw = p.get();
    const int prog_fd = bpf_program__fd(skel->progs.weft_sched_switch);
    p->runq_duty = std::make_unique<DutyCycle>(
        [raw, prog_fd]() -> Status {
          int fd = bpf_raw_tracepoint_open("sched_switch", prog_fd);
          if (fd < 0) return make_error(std::string("ebpf: attaching sched_switch: ") + std::strerror(errno), -errno);
          raw->runq_link_fd = fd;
          return {};
        },
        [raw] {
          close(raw->runq_link_fd);
          raw->runq_link_fd = -1;
        },
        options.runq_on, options.runq_period);
    if (auto st = p->runq_duty->start(); !st) return st.error();
  }
  return p;
}

// The run-queue method asked for (or the best the kernel keeps), falling back from
// sched_info to wakeup stamps under Auto when the kernel refuses the first.
Result<std::unique_ptr<EbpfPrograms>> attach_with_fallback(const std::string& cpu, uint64_t tick_fn,
                                                           const EbpfOptions& options, const std::vector<int>& cpus) {
  using Method = EbpfOptions::RunqMethod;
  std::string from = "wakeup";
  if (!options.runq_latency) {
    from = "off";
  } else if (options.runq_method == Method::SchedInfo ||
             (options.runq_method == Method::Auto && kernel_keeps_sched_info())) {
    from = "sched_info";
  }
  auto p = attach_programs(from, cpu, tick_fn, options, cpus);
  if (!p && from == "sched_info" && options.runq_method == Method::Auto && p.error().code != -EPERM) {
    log::warn("load: run-queue waits from sched_info refused ({}); using sched_wakeup programs", p.message());
    p = attach_programs("wakeup", cpu, tick_fn, options, cpus);
  }
  return p;
}

}  // namespace

Result<std::unique_ptr<EbpfSource>> EbpfSource::create(const TextFiles& files, std::string cgroup2_mount,
                                                       EbpfOptions options) {
  int possible = libbpf_num_possible_cpus();
  if (possible <= 0) return make_error("ebpf: cannot count possible CPUs: " + std::string(std::strerror(-possible)));
  auto cpus = online_cpus(files, options.cpu_online, possible);
  if (!cpus) return cpus.error();
  // The cheapest way of timing CPU busy that works here, unless one is asked for.
  using Cpu = EbpfOptions::CpuMethod;
  std::vector<std::string> methods;
  switch (options.cpu_method) {
    // Not "sampled": its own timer interrupts cost ~2 % of a CPU here, more than either; opt-in.
    case Cpu::Auto: methods = {"tick", "switch"}; break;
    case Cpu::Tick: methods = {"tick"}; break;
    case Cpu::Sampled: methods = {"sampled"}; break;
    case Cpu::Switch: methods = {"switch"}; break;
  }
  Result<std::unique_ptr<EbpfPrograms>> p = make_error("ebpf: no CPU method tried");
  for (const auto& cpu : methods) {
    uint64_t tick_fn = 0;
    if (cpu == "tick") {
      auto fn = tick_preconditions(files, options);
      if (!fn) {
        p = fn.error();
        if (methods.size() > 1) log::info("load: CPU time from the tick unavailable: {}", p.message());
        continue;
      }
      tick_fn = *fn;
    }
    p = attach_with_fallback(cpu, tick_fn, options, *cpus);
    if (p || p.error().code == -EPERM) break;  // without permission no method will load
    if (&cpu != &methods.back()) log::warn("load: CPU time by {} unavailable: {}", cpu, p.message());
  }
  if (!p) return p.error();
  return std::unique_ptr<EbpfSource>(
      new EbpfSource(files, std::move(cgroup2_mount), std::move(options), std::move(*p), possible));
}

EbpfSource::EbpfSource(const TextFiles& files, std::string mount, EbpfOptions options,
                       std::unique_ptr<EbpfPrograms> programs, int possible_cpus)
    : files_(files),
      mount_(std::move(mount)),
      options_(std::move(options)),
      programs_(std::move(programs)),
      possible_cpus_(possible_cpus) {}

EbpfSource::~EbpfSource() = default;

std::string EbpfSource::cpu_method() const { return programs_->cpu; }

std::vector<std::pair<std::string, int>> EbpfSource::program_fds() const {
  std::vector<std::pair<std::string, int>> fds;
  bpf_program* prog = nullptr;
  bpf_object__for_each_program(prog, programs_->skel->obj) {
    if (bpf_program__fd(prog) >= 0) fds.emplace_back(bpf_program__name(prog), bpf_program__fd(prog));
  }
  return fds;
}

std::string EbpfSource::detail() const {
  const auto& p = *programs_;
  std::string cpu = "CPU time at every context switch";
  if (p.cpu == "tick") cpu = "CPU time from the scheduler tick (" + std::to_string(p.sample_hz) + " Hz)";
  if (p.cpu == "sampled") cpu = "CPU time sampled at " + std::to_string(p.sample_hz) + " Hz per CPU (cpu-clock perf events)";
  std::string runq;
  if (p.runq_from == "sched_info") {
    runq = "run-queue waits from the scheduler's sched_info stamps";
    if (p.runq_duty) {
      runq += ", recorded " + std::to_string(options_.runq_on.count()) + " ms of every " +
              std::to_string(options_.runq_period.count()) + " ms";
    }
  } else if (p.runq_from == "wakeup") {
    runq = "run-queue waits from sched_wakeup programs";
  } else {
    runq = "run-queue latency off";
  }
  return cpu + "; " + runq;
}

Status EbpfSource::watch_cgroup(const std::string& path) {
  if (slots_.count(path)) return {};
  if (free_slots_.empty() && next_slot_ >= WEFT_MAX_WATCHED) {
    return make_error("--cgroup " + path + ": at most " + std::to_string(WEFT_MAX_WATCHED) + " cgroups can be watched");
  }
  auto dir = resolve_cgroup_dir(files_, mount_, path);
  if (!dir) return dir.error();
  auto id = cgroup_id(*dir);
  if (!id) return id.error();
  const uint32_t slot = free_slots_.empty() ? next_slot_ : free_slots_.back();
  weft_load* skel = programs_->skel;
  std::vector<uint64_t> zeros(static_cast<size_t>(possible_cpus_), 0);
  if (bpf_map__update_elem(skel->maps.cgroup_busy, &slot, sizeof slot, zeros.data(),
                           zeros.size() * sizeof(uint64_t), BPF_ANY) != 0) {
    return make_error("ebpf: clearing cgroup slot for " + path + ": " + std::strerror(errno), errno);
  }
  uint64_t key = *id;
  if (bpf_map__update_elem(skel->maps.watched, &key, sizeof key, &slot, sizeof slot, BPF_ANY) != 0) {
    return make_error("ebpf: watching cgroup " + path + ": " + std::strerror(errno), errno);
  }
  if (free_slots_.empty()) next_slot_++;
  else free_slots_.pop_back();
  slots_[path] = {slot, key};
  // Tasks already running pick up the new slot at their next switch (or tick).
  skel->bss->watch_count = static_cast<uint32_t>(slots_.size());
  return {};
}

Status EbpfSource::unwatch_cgroup(const std::string& path) {
  auto it = slots_.find(path);
  if (it == slots_.end()) return {};
  weft_load* skel = programs_->skel;
  uint64_t key = it->second.id;
  if (bpf_map__delete_elem(skel->maps.watched, &key, sizeof key, 0) != 0 && errno != ENOENT) {
    return make_error("ebpf: unwatching cgroup " + path + ": " + std::strerror(errno), errno);
  }
  // A CPU may still hold the slot for the task it last saw there (switch mode): up to
  // one interval of that task lands in the slot, which watch_cgroup() clears on reuse.
  free_slots_.push_back(it->second.slot);
  slots_.erase(it);
  skel->bss->watch_count = static_cast<uint32_t>(slots_.size());
  return {};
}

Result<LoadCounters> EbpfSource::read() {
  LoadCounters c;
  auto online = online_cpus(files_, options_.cpu_online, possible_cpus_);
  if (!online) return online.error();
  weft_load* skel = programs_->skel;

  const size_t n = static_cast<size_t>(possible_cpus_);
  std::vector<weft_cpu_stats> first(n), second(n);
  std::map<std::string, WatchedCgroupValues> cgroups;
  int64_t now = 0;
  bool clean = false;
  const uint32_t zero = 0;
  for (int attempt = 0; attempt < kReadAttempts; attempt++) {
    if (bpf_map__lookup_elem(skel->maps.cpu_stats, &zero, sizeof zero, first.data(), n * sizeof(weft_cpu_stats), 0)) {
      return make_error(std::string("ebpf: reading cpu_stats: ") + std::strerror(errno), errno);
    }
    now = monotonic_now_ns();
    for (const auto& [path, watched] : slots_) {
      const uint32_t slot = watched.slot;
      auto& v = cgroups[path];
      v.slot = slot;
      v.per_cpu_ns.assign(n, 0);
      if (bpf_map__lookup_elem(skel->maps.cgroup_busy, &slot, sizeof slot, v.per_cpu_ns.data(),
                               n * sizeof(uint64_t), 0)) {
        return make_error("ebpf: reading cgroup_busy for " + path + ": " + std::strerror(errno), errno);
      }
    }
    if (bpf_map__lookup_elem(skel->maps.cpu_stats, &zero, sizeof zero, second.data(), n * sizeof(weft_cpu_stats), 0)) {
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
  if (programs_->cpu != "switch") c.cpu_sample_hz = programs_->sample_hz;
  if (programs_->runq_duty) c.runq_observed_ns = programs_->runq_duty->on_ns(c.at_ns);

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
