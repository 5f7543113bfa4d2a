// Cost of the load collector on a context-switch storm, in one run:
//  - throughput of a pipe ping-pong between two threads, alternating trials without
//    programs, with an empty raw_tp program on sched_switch (the floor of hooking every
//    switch), with the exact mode (busy time and run-queue waits at every switch, the
//    old default), with the sampled mode (the default: cpu-clock samples at 997 Hz per
//    CPU, run-queue program attached 10 % of the time) and with sampling alone;
//    same process, same moment, so background load from other work hits all alike; the
//    loss is the median of paired ratios;
//  - a CPU-bound loop with and without sampling (what the sample interrupts cost a CPU);
//  - the programs' own kernel time (bpf run-time stats, on only for that phase), per
//    second during the storm and without it;
//  - the collector's user-space CPU per second (reads at 1 s sampling, duty-cycle thread).
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "collectors/load/ebpf/bpf_loader.h"
#include "collectors/load/ebpf/cpu_clock_sampling.h"
#include "collectors/load/ebpf/ebpf_source.h"
#include "collectors/load/ebpf/kallsyms.h"
#include "collectors/load/text_files.h"
#include "ebpf/bench_floor.skel.h"
#include "ebpf/load.skel.h"

namespace {

using weft::load::EbpfOptions;
using weft::load::EbpfSource;
using weft::Result;

double cpu_s(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double thread_cpu_s() { return cpu_s(CLOCK_THREAD_CPUTIME_ID); }

// Where the measured threads run: one CPU and, with fifo, SCHED_FIFO priority 1 so that
// other work on a shared machine (builds) cannot take that CPU from them; what is left
// of the CPU's time to others (sched_rt_runtime_us, the fair server) is the same in
// every trial.
struct Placement {
  int cpu = 0;
  bool fifo = true;
};

void place(const Placement& p) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(p.cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
  if (p.fifo) {
    sched_param sp{};
    sp.sched_priority = 1;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) std::perror("sched_setscheduler(SCHED_FIFO)");
  }
}

struct Rate {
  double per_wall_s = 0;  // operations per second of wall time
  double per_cpu_s = 0;   // operations per second of CPU time used by the measured threads
};

// A one-byte pipe ping-pong between two threads pinned to one CPU, so every round trip
// is two context switches and two wakeups on that CPU.
Rate ping_pong(double seconds, const Placement& cpu) {
  int a[2], b[2];
  if (pipe(a) != 0 || pipe(b) != 0) return {};
  std::atomic<double> echo_cpu{0};
  std::thread echo([&] {
    place(cpu);
    double c0 = thread_cpu_s();
    char c;
    while (read(a[0], &c, 1) == 1) {
      if (write(b[1], &c, 1) != 1) break;
    }
    echo_cpu = thread_cpu_s() - c0;
  });
  double self_cpu = 0;
  uint64_t trips = 0;
  double elapsed = 0;
  std::thread pinger([&] {
    place(cpu);
    char c = 'x';
    double c0 = thread_cpu_s();
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      for (int i = 0; i < 256; i++) {
        if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) break;
        trips++;
      }
    }
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    self_cpu = thread_cpu_s() - c0;
    close(a[1]);
  });
  pinger.join();
  echo.join();
  close(a[0]);
  close(b[0]);
  close(b[1]);
  double t = static_cast<double>(trips);
  return {t / elapsed, t / (self_cpu + echo_cpu.load())};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Mean and its standard error.
std::pair<double, double> mean_se(const std::vector<double>& v) {
  if (v.size() < 2) return {v.empty() ? 0 : v[0], 0};
  double m = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return {m, sd / std::sqrt(static_cast<double>(v.size()))};
}

// "1.23 % (mean 1.10 ± 0.40)": loss from paired ratios (with/without).
// Slices in which the storm made no progress at all (the CPU taken away for the whole
// slice) give no ratio and are left out; the mean drops the lowest and highest tenth
// (a slice in which the storm lost its CPU to other work for a while is an outlier).
std::string loss_text(const std::vector<double>& all) {
  std::vector<double> ratios;
  for (double r : all) {
    if (std::isfinite(r) && r > 0) ratios.push_back(r);
  }
  std::sort(ratios.begin(), ratios.end());
  const size_t cut = ratios.size() / 10;
  std::vector<double> trimmed(ratios.begin() + static_cast<long>(cut), ratios.end() - static_cast<long>(cut));
  auto [m, se] = mean_se(trimmed);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%5.2f %% (mean %5.2f ± %.2f)", (1 - median(ratios)) * 100, (1 - m) * 100, se * 100);
  return buf;
}

// Something attached for one trial; released (detached) when the handle goes.
using Attached = std::shared_ptr<void>;

struct Mode {
  std::string name;
  std::function<Attached()> attach;
  std::vector<double> ratio, cpu_ratio;
};

std::unique_ptr<EbpfSource> make_source(const weft::load::TextFiles& files, const EbpfOptions& options,
                                        const char* expect_method) {
  auto s = EbpfSource::create(files, "", options);
  if (!s) {
    std::fprintf(stderr, "load programs: %s\n", s.message().c_str());
    std::exit(1);
  }
  if ((*s)->cpu_method() != expect_method) {
    std::fprintf(stderr, "expected CPU method %s, got %s (%s)\n", expect_method, (*s)->cpu_method().c_str(),
                 (*s)->detail().c_str());
    std::exit(1);
  }
  return std::move(*s);
}

struct ProgTimes {
  std::vector<std::string> names;
  std::vector<uint64_t> ns, runs;
};

ProgTimes prog_times(const EbpfSource& source) {
  ProgTimes t;
  for (const auto& [name, fd] : source.program_fds()) {
    bpf_prog_info info{};
    uint32_t len = sizeof info;
    bpf_obj_get_info_by_fd(fd, &info, &len);
    t.names.push_back(name);
    t.ns.push_back(info.run_time_ns);
    t.runs.push_back(info.run_cnt);
  }
  return t;
}

// Prints per program and in total what ran between two snapshots over `wall` seconds.
void print_prog_delta(const char* label, const ProgTimes& a, const ProgTimes& b, double wall) {
  uint64_t ns = 0, runs = 0;
  for (size_t i = 0; i < b.ns.size(); i++) {
    ns += b.ns[i] - a.ns[i];
    runs += b.runs[i] - a.runs[i];
  }
  std::printf("  %s: %.0f program runs/s, %.3f ms CPU per second (%.3f %% of one CPU)\n", label,
              static_cast<double>(runs) / wall, static_cast<double>(ns) / wall / 1e6,
              static_cast<double>(ns) / wall / 1e9 * 100);
  for (size_t i = 0; i < b.ns.size(); i++) {
    uint64_t n = b.runs[i] - a.runs[i];
    if (n) {
      std::printf("    %-22s %9.0f/s %5.0f ns each\n", b.names[i].c_str(), static_cast<double>(n) / wall,
                  static_cast<double>(b.ns[i] - a.ns[i]) / static_cast<double>(n));
    }
  }
}


// The ping-pong running continuously in the background, read at any moment: for slices
// of a few tens of ms that alternate what is attached while the storm goes on, so that
// slow drifts of a shared machine (other builds, the host) hit all modes alike.
class Storm {
 public:
  explicit Storm(const Placement& where) {
    if (pipe(a_) != 0 || pipe(b_) != 0) std::exit(1);
    echo_ = std::thread([this, where] {
      place(where);
      char c;
      while (read(a_[0], &c, 1) == 1) {
        if (write(b_[1], &c, 1) != 1) break;
      }
    });
    pinger_ = std::thread([this, where] {
      place(where);
      char c = 'x';
      while (!stop_.load(std::memory_order_relaxed)) {
        if (write(a_[1], &c, 1) != 1 || read(b_[0], &c, 1) != 1) break;
        trips_.store(trips_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      }
      close(a_[1]);
    });
    pthread_getcpuclockid(echo_.native_handle(), &echo_clock_);
    pthread_getcpuclockid(pinger_.native_handle(), &pinger_clock_);
  }
  ~Storm() {
    stop_ = true;
    pinger_.join();
    echo_.join();
    close(a_[0]);
    close(b_[0]);
    close(b_[1]);
  }
  struct Point {
    double wall_s, cpu_s;
    uint64_t trips;
  };
  Point now() const {
    return {std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(),
            cpu_s(echo_clock_) + cpu_s(pinger_clock_), trips_.load(std::memory_order_relaxed)};
  }

 private:
  int a_[2], b_[2];
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> trips_{0};
  std::thread echo_, pinger_;
  clockid_t echo_clock_{}, pinger_clock_{};
};

Rate rate_between(const Storm::Point& a, const Storm::Point& b) {
  double trips = static_cast<double>(b.trips - a.trips);
  return {trips / (b.wall_s - a.wall_s), trips / (b.cpu_s - a.cpu_s)};
}

// A load.bpf.o loaded (not attached) for the exact mode, or with the tick and the
// cpu-clock sample programs both loaded (attached one at a time).
weft_load* load_programs(bool exact, uint64_t tick_fn) {
  weft_load* skel = weft_load__open();
  if (!skel) std::exit(1);
  skel->rodata->runq_enabled = true;
  skel->rodata->runq_sched_info = true;
  skel->rodata->busy_from_switch = exact;
  skel->rodata->tick_fn = tick_fn;
  bpf_program__set_autoload(skel->progs.weft_sched_wakeup, false);
  bpf_program__set_autoload(skel->progs.weft_sched_wakeup_new, false);
  if (exact) {
    bpf_program__set_autoload(skel->progs.weft_cpu_sample, false);
    bpf_program__set_autoload(skel->progs.weft_tick, false);
  }
  if (auto st = weft::load::load_skeleton(skel->skeleton, "load.bpf.o"); !st) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    std::exit(1);
  }
  return skel;
}

// Something switched on and off quickly while the storm runs.
struct Toggle {
  std::string name;
  std::function<void()> on, off;
  std::vector<double> ratio, cpu_ratio;
};

std::function<void()> attach_raw_tp(const char* tracepoint, bpf_program* prog, int& fd) {
  return [tracepoint, prog, &fd] {
    fd = bpf_raw_tracepoint_open(tracepoint, bpf_program__fd(prog));
    if (fd < 0) {
      std::perror("bpf_raw_tracepoint_open");
      std::exit(1);
    }
  };
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"load collector overhead on a context-switch storm"};
  int pairs = 12;
  double seconds = 1.0;
  int cycles = 160;
  int slice_ms = 50;
  Placement cpu;
  app.add_option("--cycles", cycles, "fine alternation: cycles of one slice per mode")->check(CLI::Range(0, 10000));
  app.add_option("--slice-ms", slice_ms, "fine alternation: length of one slice")->check(CLI::Range(5, 10000));
  app.add_option("--pairs", pairs, "direct trials: rounds of alternating whole trials")->check(CLI::Range(0, 100));
  app.add_option("--seconds", seconds, "length of one trial")->check(CLI::Range(0.05, 60.0));
  int duty_period_ms = 0;
  app.add_option("--runq-period-ms", duty_period_ms,
                 "run-queue duty period of the sampled mode in the storm trials (default: the trial length, with the "
                 "default's on-share, so that every trial holds whole periods)")
      ->check(CLI::Range(10, 60000));
  app.add_option("--cpu", cpu.cpu, "CPU the ping-pong threads are pinned to")->check(CLI::Range(0, 4095));
  bool no_fifo = false;
  app.add_flag("--no-fifo", no_fifo, "run the measured threads as normal (SCHED_OTHER) tasks");
  CLI11_PARSE(app, argc, argv);
  cpu.fifo = !no_fifo;

  const EbpfOptions defaults;  // the defaults: tick mode, run-queue duty cycle
  const double period_s = static_cast<double>(defaults.runq_period.count()) / 1000.0;
  const double on_share = static_cast<double>(defaults.runq_on.count()) /
                          static_cast<double>(defaults.runq_period.count());
  // The same on-share as the default, over a period that fits the trials: the per-switch
  // cost while on is the same, switching on and off is more frequent (if anything, dearer).
  EbpfOptions default_trial = defaults;
  default_trial.runq_period =
      std::chrono::milliseconds(duty_period_ms ? duty_period_ms : static_cast<int>(std::lround(seconds * 1000)));
  default_trial.runq_on = std::chrono::milliseconds(
      std::max<long>(1, std::lround(on_share * static_cast<double>(default_trial.runq_period.count()))));

  weft::load::HostFiles files;
  EbpfOptions exact;
  exact.cpu_method = EbpfOptions::CpuMethod::Switch;
  exact.runq_method = EbpfOptions::RunqMethod::SchedInfo;
  EbpfOptions sampled = defaults;
  sampled.cpu_method = EbpfOptions::CpuMethod::Sampled;

  weft_bench_floor* floor = weft_bench_floor__open_and_load();
  if (!floor) {
    std::fprintf(stderr, "cannot load the empty floor program\n");
    return 1;
  }
  // Fine alternation: the storm runs throughout; every cycle gives one slice to each of
  // none, the floor, the exact mode's sched_switch, the run-queue program alone, the tick
  // program alone and the cpu-clock sampling alone, in a shuffled order. The tick mode
  // (default) costs the tick program plus the on-share of the run-queue program; the
  // sampled mode the sampling plus that share.
  if (cycles > 0) {
    int ncpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    if (ncpu > 1) place({(cpu.cpu + 1) % ncpu, false});  // this thread away from the storm
    auto kallsyms = files.read("/proc/kallsyms");
    auto tick_fn = kallsyms ? weft::load::find_kernel_function(*kallsyms, {"tick_nohz_handler", "tick_sched_timer"})
                            : Result<uint64_t>(kallsyms.error());
    if (!tick_fn) {
      std::fprintf(stderr, "tick function: %s\n", tick_fn.message().c_str());
      return 1;
    }
    weft_load* exact_progs = load_programs(true, 0);
    weft_load* sampled_progs = load_programs(false, *tick_fn);
    std::vector<int> cpus;
    for (int c = 0; c < ncpu; c++) cpus.push_back(c);
    auto sampling = weft::load::CpuClockSampling::attach(sampled_progs->progs.weft_cpu_sample, cpus, sampled.sample_hz);
    if (!sampling || !sampling->set_enabled(false)) {
      std::fprintf(stderr, "cpu-clock sampling: %s\n", sampling ? "cannot disable" : sampling.message().c_str());
      return 1;
    }
    bpf_link* floor_link = nullptr;
    int exact_fd = -1, runq_fd = -1, tick_fd = -1;
    std::vector<Toggle> toggles;
    toggles.push_back({"none", [] {}, [] {}, {}, {}});
    toggles.push_back({"empty raw_tp program on sched_switch (floor)",
                       [&] { floor_link = bpf_program__attach(floor->progs.weft_floor_switch); },
                       [&] { bpf_link__destroy(floor_link); }, {}, {}});
    toggles.push_back({"exact: every switch (old default)",
                       attach_raw_tp("sched_switch", exact_progs->progs.weft_sched_switch, exact_fd),
                       [&] { close(exact_fd); }, {}, {}});
    toggles.push_back({"run-queue program alone, always on",
                       attach_raw_tp("sched_switch", sampled_progs->progs.weft_sched_switch, runq_fd),
                       [&] { close(runq_fd); }, {}, {}});
    toggles.push_back({"tick program alone (CPU time)",
                       attach_raw_tp("hrtimer_expire_entry", sampled_progs->progs.weft_tick, tick_fd),
                       [&] { close(tick_fd); }, {}, {}});
    toggles.push_back({"cpu-clock sampling alone (CPU time)", [&] { (void)sampling->set_enabled(true); },
                       [&] { (void)sampling->set_enabled(false); }, {}, {}});
    std::vector<size_t> order(toggles.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::mt19937 rng(12345);
    std::printf("fine alternation: pipe ping-pong on CPU %d (%s) running throughout, %d cycles of %zu slices of %d ms\n",
                cpu.cpu, cpu.fifo ? "SCHED_FIFO" : "SCHED_OTHER", cycles, toggles.size(), slice_ms);
    std::fflush(stdout);
    {
      Storm storm(cpu);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      std::vector<Rate> rates(toggles.size());
      for (int c = 0; c < cycles; c++) {
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t i : order) {
          toggles[i].on();
          std::this_thread::sleep_for(std::chrono::milliseconds(2));  // past the attach
          auto a = storm.now();
          std::this_thread::sleep_for(std::chrono::milliseconds(slice_ms));
          auto b = storm.now();
          toggles[i].off();
          rates[i] = rate_between(a, b);
        }
        for (size_t i = 1; i < toggles.size(); i++) {
          toggles[i].ratio.push_back(rates[i].per_wall_s / rates[0].per_wall_s);
          toggles[i].cpu_ratio.push_back(rates[i].per_cpu_s / rates[0].per_cpu_s);
        }
        toggles[0].ratio.push_back(rates[0].per_wall_s);
        toggles[0].cpu_ratio.push_back(rates[0].per_cpu_s);
      }
    }
    std::printf("without programs: median %.0f round trips/s of wall time, %.0f per CPU-second\n",
                median(toggles[0].ratio), median(toggles[0].cpu_ratio));
    std::printf("loss: median of per-cycle ratios to the cycle's own \"none\" slice (10 %% trimmed mean ± standard error), %%\n");
    for (size_t i = 1; i < toggles.size(); i++) {
      std::printf("  %-46s wall %s, per CPU-second %s\n", toggles[i].name.c_str(), loss_text(toggles[i].ratio).c_str(),
                  loss_text(toggles[i].cpu_ratio).c_str());
    }
    // Per cycle: 1 - (loss of the CPU-time program + on-share x loss of the run-queue program).
    const std::string share = std::to_string(static_cast<int>(on_share * 100)) + " % of the run-queue program";
    for (auto [cpu_toggle, label] : {std::pair{size_t{4}, "tick mode (default) = tick + "},
                                     std::pair{size_t{5}, "sampled mode = cpu-clock sampling + "}}) {
      std::vector<double> composed, composed_cpu;
      for (size_t k = 0; k < toggles[cpu_toggle].ratio.size(); k++) {
        composed.push_back(1 - ((1 - toggles[cpu_toggle].ratio[k]) + on_share * (1 - toggles[3].ratio[k])));
        composed_cpu.push_back(1 - ((1 - toggles[cpu_toggle].cpu_ratio[k]) + on_share * (1 - toggles[3].cpu_ratio[k])));
      }
      std::printf("  %-46s wall %s, per CPU-second %s%s\n", (label + share).c_str(), loss_text(composed).c_str(),
                  loss_text(composed_cpu).c_str(), cpu_toggle == 4 ? "  (goal <= 1 %)" : "");
    }
    sampling = weft::load::CpuClockSampling();
    weft_load__destroy(exact_progs);
    weft_load__destroy(sampled_progs);
    std::fflush(stdout);
  }

  std::vector<Mode> modes;
  modes.push_back({"exact: every switch (old default)",
                   [&]() -> Attached { return make_source(files, exact, "switch"); }, {}, {}});
  char default_name[96];
  std::snprintf(default_name, sizeof default_name, "tick + runq %ld/%ld ms (default)",
                static_cast<long>(default_trial.runq_on.count()), static_cast<long>(default_trial.runq_period.count()));
  modes.push_back({default_name, [&]() -> Attached { return make_source(files, default_trial, "tick"); }, {}, {}});

  if (pairs > 0) {
  std::printf("direct trials: the collector as shipped (a source created per trial), pipe ping-pong on CPU %d (%s), %d "
              "rounds of %.1f s trials; round trips/s of wall time (change):\n",
              cpu.cpu, cpu.fifo ? "SCHED_FIFO" : "SCHED_OTHER", pairs, seconds);
  std::vector<double> off, off_cpu;
  for (int i = 0; i < pairs; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Rate base = ping_pong(seconds, cpu);
    off.push_back(base.per_wall_s);
    off_cpu.push_back(base.per_cpu_s);
    std::printf("  round %2d: none %.0f", i + 1, base.per_wall_s);
    for (size_t m = 0; m < modes.size(); m++) {
      Rate with;
      {
        Attached a = modes[m].attach();
        with = ping_pong(seconds, cpu);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      modes[m].ratio.push_back(with.per_wall_s / base.per_wall_s);
      modes[m].cpu_ratio.push_back(with.per_cpu_s / base.per_cpu_s);
      std::printf(" | %.0f (%+.2f %%)", with.per_wall_s, (with.per_wall_s / base.per_wall_s - 1) * 100);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  std::printf("without programs: median %.0f round trips/s of wall time, %.0f per CPU-second\n", median(off),
              median(off_cpu));
  std::printf("loss: median of paired ratios (10 %% trimmed mean ± standard error), %%\n");
  for (auto& m : modes) {
    std::printf("  %-46s wall %s, per CPU-second %s%s\n", m.name.c_str(), loss_text(m.ratio).c_str(),
                loss_text(m.cpu_ratio).c_str(), m.name.find("(default)") != std::string::npos ? "  (goal <= 1 %)" : "");
  }
  }

  // Kernel time of the programs, with run-time stats on only for this phase.
  int stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
  if (stats_fd < 0) {
    std::printf("bpf run-time stats unavailable: %s\n", std::strerror(errno));
  } else {
    const double quiet_s = std::max(2.0, 2 * period_s);
    const double storm_s = std::max(seconds, 2 * period_s);  // whole default duty periods
    for (auto [options, method] : {std::pair<const EbpfOptions*, const char*>{&exact, "switch"}, {&defaults, "tick"},
                                   {&sampled, "sampled"}}) {
      auto source = make_source(files, *options, method);
      std::printf("programs, %s mode (%s):\n", source->cpu_method().c_str(), source->detail().c_str());
      ProgTimes t0 = prog_times(*source);
      auto w0 = std::chrono::steady_clock::now();
      double rate = ping_pong(storm_s, cpu).per_wall_s;
      double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      ProgTimes t1 = prog_times(*source);
      print_prog_delta(("during the storm (" + std::to_string(static_cast<long>(rate)) + " round trips/s)").c_str(),
                       t0, t1, wall);
      auto q0 = std::chrono::steady_clock::now();
      std::this_thread::sleep_for(std::chrono::duration<double>(quiet_s));
      double qwall = std::chrono::duration<double>(std::chrono::steady_clock::now() - q0).count();
      ProgTimes t2 = prog_times(*source);
      print_prog_delta("without the storm (this machine's background)", t1, t2, qwall);
    }
    close(stats_fd);
  }
  weft_bench_floor__destroy(floor);

  // The user-space side of the default: one read() per sampling period (1 s by
  // default) and the thread that switches the run-queue program on and off.
  auto src = make_source(files, defaults, "tick");
  (void)src->watch_cgroup("/");
  const int reads = 200;
  double c0 = thread_cpu_s();
  for (int i = 0; i < reads; i++) {
    if (!src->read()) return 1;
  }
  double per_read = (thread_cpu_s() - c0) / reads;
  const double idle_s = std::max(3.0, 3 * period_s);
  double p0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
  std::this_thread::sleep_for(std::chrono::duration<double>(idle_s));
  double duty_per_s = (cpu_s(CLOCK_PROCESS_CPUTIME_ID) - p0) / idle_s;
  std::printf("collector user space: read() %.1f us CPU each -> %.3f ms CPU per second at 1 s sampling; "
              "duty-cycle thread %.3f ms CPU per second\n",
              per_read * 1e6, per_read * 1e3, duty_per_s * 1e3);
  return 0;
}
