// Cost of the load collector on a context-switch storm, in one run:
//  - throughput of a pipe ping-pong between two threads, alternating trials without
//    and with the BPF programs attached (same process, same moment, so background
//    load from other work hits both alike); the loss is the median of paired ratios;
//  - the programs' own kernel time (bpf run-time stats, enabled only for that phase)
//    per second during the storm and per invocation;
//  - the user-space collector's CPU per second at the default 1 s sampling.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include "collectors/load/bpf_loader.h"
#include "collectors/load/ebpf_source.h"
#include "collectors/load/text_files.h"
#include "ebpf/bench_floor.skel.h"
#include "ebpf/load.skel.h"

namespace {

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

struct Rate {
  double per_wall_s = 0;  // round trips per second of wall time
  double per_cpu_s = 0;   // round trips per second of CPU time used by the two threads
};

// A one-byte pipe ping-pong between two threads pinned to one CPU, so every round trip
// is two context switches and two wakeups on that CPU.
Rate ping_pong(double seconds, int cpu) {
  int a[2], b[2];
  if (pipe(a) != 0 || pipe(b) != 0) return {};
  std::atomic<double> echo_cpu{0};
  std::thread echo([&] {
    pin_to(cpu);
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
    pin_to(cpu);
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

struct ProgTime {
  uint64_t run_ns = 0;
  uint64_t runs = 0;
  std::vector<std::pair<uint64_t, uint64_t>> each;  // per program: ns, runs
};

ProgTime prog_time(weft_load* skel) {
  ProgTime t;
  bpf_program* progs[] = {skel->progs.weft_sched_switch, skel->progs.weft_sched_wakeup, skel->progs.weft_sched_wakeup_new,
                          skel->progs.weft_reclaim_begin, skel->progs.weft_reclaim_end};
  for (auto* p : progs) {
    bpf_prog_info info{};
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) == 0) {
      t.run_ns += info.run_time_ns;
      t.runs += info.run_cnt;
    }
    t.each.emplace_back(info.run_time_ns, info.run_cnt);
  }
  return t;
}

const char* kProgNames[] = {"sched_switch", "sched_wakeup", "sched_wakeup_new", "reclaim_begin", "reclaim_end"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"load collector overhead on a context-switch storm"};
  int pairs = 8;
  double seconds = 1.0;
  int cpu = 0;
  app.add_option("--pairs", pairs, "alternating without/with trial pairs")->check(CLI::Range(1, 100));
  app.add_option("--seconds", seconds, "length of one trial")->check(CLI::Range(0.1, 60.0));
  app.add_option("--cpu", cpu, "CPU the ping-pong threads are pinned to")->check(CLI::Range(0, 4095));
  CLI11_PARSE(app, argc, argv);

  // One loaded copy per way of running: run-queue waits from sched_info (the default
  // where the kernel has it), from wakeup stamps, and no run-queue latency.
  struct Mode {
    const char* name;
    weft_load* skel;
    std::vector<double> ratio;
    std::vector<double> cpu_ratio;
  };
  std::vector<Mode> modes = {{"sched_info", nullptr, {}, {}}, {"wakeup", nullptr, {}, {}}, {"no-runq", nullptr, {}, {}}};
  for (auto& m : modes) {
    m.skel = weft_load__open();
    if (!m.skel) {
      std::fprintf(stderr, "cannot open the BPF object\n");
      return 1;
    }
    std::string name = m.name;
    m.skel->rodata->runq_enabled = name != "no-runq";
    m.skel->rodata->runq_sched_info = name == "sched_info";
    if (name != "wakeup") {
      bpf_program__set_autoload(m.skel->progs.weft_sched_wakeup, false);
      bpf_program__set_autoload(m.skel->progs.weft_sched_wakeup_new, false);
    }
    if (auto st = weft::load::load_skeleton(m.skel->skeleton, "load.bpf.o"); !st) {
      std::fprintf(stderr, "%s: %s\n", m.name, st.message().c_str());
      return 1;
    }
  }
  weft_load* skel = modes[0].skel;
  weft_bench_floor* floor = weft_bench_floor__open_and_load();
  if (!floor) {
    std::fprintf(stderr, "cannot load the empty floor program\n");
    return 1;
  }
  auto with_attached = [&](weft_load* s) {
    if (auto st = weft::load::attach_skeleton(s->skeleton, "load.bpf.o"); !st) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      std::exit(1);
    }
    Rate r = ping_pong(seconds, cpu);
    weft_load__detach(s);
    return r;
  };

  std::printf("pipe ping-pong on CPU %d, %d rounds of %.1f s trials, round trips/s of wall time: without programs | "
              "empty program | sched_info (default) | wakeup stamps | no run-queue latency\n", cpu, pairs, seconds);
  std::vector<double> off, off_cpu, floor_ratio, floor_cpu_ratio;
  for (int i = 0; i < pairs; i++) {
    Rate base = ping_pong(seconds, cpu);
    off.push_back(base.per_wall_s);
    off_cpu.push_back(base.per_cpu_s);
    std::printf("  round %d: %.0f", i + 1, base.per_wall_s);
    bpf_link* floor_link = bpf_program__attach(floor->progs.weft_floor_switch);
    if (!floor_link) {
      std::fprintf(stderr, "attaching the empty program failed\n");
      return 1;
    }
    Rate empty = ping_pong(seconds, cpu);
    bpf_link__destroy(floor_link);
    floor_ratio.push_back(empty.per_wall_s / base.per_wall_s);
    floor_cpu_ratio.push_back(empty.per_cpu_s / base.per_cpu_s);
    std::printf(" | empty %.0f (%+.2f %%)", empty.per_wall_s, (empty.per_wall_s / base.per_wall_s - 1) * 100);
    for (auto& m : modes) {
      Rate with = with_attached(m.skel);
      m.ratio.push_back(with.per_wall_s / base.per_wall_s);
      m.cpu_ratio.push_back(with.per_cpu_s / base.per_cpu_s);
      std::printf(" | %.0f (%+.2f %%)", with.per_wall_s, (with.per_wall_s / base.per_wall_s - 1) * 100);
    }
    std::printf("\n");
  }
  std::printf("without programs: median %.0f round trips/s of wall time, %.0f per CPU-second\n", median(off),
              median(off_cpu));
  std::printf("floor, an empty raw_tp program on sched_switch: %.2f %% of wall throughput, %.2f %% per CPU-second\n",
              (1 - median(floor_ratio)) * 100, (1 - median(floor_cpu_ratio)) * 100);
  for (auto& m : modes) {
    std::printf("loss with programs, runq %-10s: %.2f %% of wall throughput, %.2f %% per CPU-second "
                "(medians of paired ratios)%s\n",
                m.name, (1 - median(m.ratio)) * 100, (1 - median(m.cpu_ratio)) * 100,
                &m == &modes[0] ? " (goal <= 1 %)" : "");
  }

  // Kernel time of the programs, with run-time stats on only for this phase.
  int stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
  if (stats_fd < 0) {
    std::printf("bpf run-time stats unavailable: %s\n", std::strerror(errno));
  } else if (weft::load::attach_skeleton(skel->skeleton, "load.bpf.o")) {
    ProgTime t0 = prog_time(skel);
    auto w0 = std::chrono::steady_clock::now();
    double rate = ping_pong(seconds, cpu).per_wall_s;
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    ProgTime t1 = prog_time(skel);
    uint64_t runs = t1.runs - t0.runs;
    double ns = static_cast<double>(t1.run_ns - t0.run_ns);
    std::printf("programs during the storm (%.0f round trips/s): %.0f invocations/s, %.0f ns each, "
                "%.2f ms CPU per second (%.2f %% of one CPU)\n",
                rate, static_cast<double>(runs) / wall, runs ? ns / static_cast<double>(runs) : 0, ns / wall / 1e6,
                ns / wall / 1e9 * 100);
    for (size_t i = 0; i < t1.each.size(); i++) {
      uint64_t n = t1.each[i].second - t0.each[i].second;
      if (n) std::printf("  %-16s %9.0f/s %5.0f ns each\n", kProgNames[i], static_cast<double>(n) / wall,
                         static_cast<double>(t1.each[i].first - t0.each[i].first) / static_cast<double>(n));
    }
    ProgTime q0 = prog_time(skel);
    auto v0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    double qwall = std::chrono::duration<double>(std::chrono::steady_clock::now() - v0).count();
    ProgTime q1 = prog_time(skel);
    std::printf("programs without the storm (background only): %.0f invocations/s, %.2f ms CPU per second\n",
                static_cast<double>(q1.runs - q0.runs) / qwall, static_cast<double>(q1.run_ns - q0.run_ns) / qwall / 1e6);
    weft_load__detach(skel);
    close(stats_fd);
  }
  for (auto& m : modes) weft_load__destroy(m.skel);
  weft_bench_floor__destroy(floor);

  // The user-space side: one read() per sampling period (1 s by default).
  weft::load::HostFiles files;
  auto src = weft::load::EbpfSource::create(files, "/sys/fs/cgroup/unified");
  if (!src) {
    std::fprintf(stderr, "%s\n", src.message().c_str());
    return 1;
  }
  (void)(*src)->watch_cgroup("/");
  const int reads = 200;
  double c0 = thread_cpu_s();
  for (int i = 0; i < reads; i++) {
    if (!(*src)->read()) return 1;
  }
  double per_read = (thread_cpu_s() - c0) / reads;
  std::printf("collector read(): %.1f us CPU each -> %.3f ms CPU per second at 1 s sampling\n", per_read * 1e6,
              per_read * 1e3);
  return 0;
}
