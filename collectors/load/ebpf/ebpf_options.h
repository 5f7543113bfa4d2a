// How the eBPF backend measures; kept free of libbpf so that callers can hold options
// on builds without eBPF support.
#pragma once

#include <chrono>
#include <string>

namespace weft::load {

struct EbpfOptions {
  std::string proc = "/proc";
  std::string cpu_online = "/sys/devices/system/cpu/online";
  std::string cpu_nohz_full = "/sys/devices/system/cpu/nohz_full";
  // false: no run-queue latency (the wakeup programs stay unloaded), less overhead
  // under context-switch storms; LoadCounters::runq_buckets is then empty.
  bool runq_latency = true;
  // Where waits come from: the scheduler's own stamp task->sched_info.last_queued
  // against this CPU's rq->clock at switch-in (no wakeup programs; needs
  // CONFIG_SCHED_INFO and CONFIG_FAIR_GROUP_SCHED, checked in the kernel's BTF), or
  // stamps by the sched_wakeup programs. Auto tries sched_info first and falls back
  // to wakeup when the kernel refuses it.
  enum class RunqMethod { Auto, SchedInfo, Wakeup };
  RunqMethod runq_method = RunqMethod::Auto;

  // How CPU busy time (node, per CPU, per cgroup) is taken:
  //  - Tick: on the kernel's own scheduler tick (HZ per busy CPU, already firing): a
  //    tick that finds a task other than the idle task counts one tick period; the same
  //    sampling the kernel's /proc/stat accounting does, no interrupts of its own. Needs
  //    the tick function's address (kallsyms), CONFIG_HZ (kernel config) and no
  //    nohz_full CPUs.
  //  - Sampled: a per-CPU software cpu-clock perf event at sample_hz runs a program that
  //    looks at the current task: one sample period busy when it is not the idle task.
  //  - Switch: exact, timed at every sched_switch, run-queue waits recorded always.
  //  - Auto: Tick, else Switch (Sampled only when asked, for its own interrupts).
  // In Tick and Sampled, run-queue waits (sched_info method) are recorded only runq_on
  // out of every runq_period, and nothing runs per switch otherwise.
  enum class CpuMethod { Auto, Tick, Sampled, Switch };
  CpuMethod cpu_method = CpuMethod::Auto;
  // Samples per second per CPU; 997 rather than 1000 so that work driven by a 1000,
  // 250 or 100 Hz timer tick does not line up with the samples.
  int sample_hz = 997;
  // Duty cycle of the run-queue program in the sampled mode (sched_info method only;
  // the wakeup method cannot be switched on and off without losing or inventing waits,
  // so it stays attached). runq_on >= runq_period: attached all the time. Each attach
  // and detach flips the sched_switch tracepoint's static key (kernel text patching,
  // ~0.2 ms of system time each), so the phases are long: 10 % at two switches per 5 s.
  std::chrono::milliseconds runq_on{500};
  std::chrono::milliseconds runq_period{5000};
};

}  // namespace weft::load
