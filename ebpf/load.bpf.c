// CPU busy time (node, per CPU and per watched cgroup v2), run-queue latency and
// direct-reclaim stalls, counted in per-CPU maps that user space reads; raw tracepoints
// and a cpu-clock perf event (no tracefs, no BTF-typed attach). Nothing is sent to user
// space per event.
//
// Three ways to time CPU busy: exact, at every sched_switch; on the scheduler tick
// (weft_tick: the kernel's own tick timer, already firing HZ times a second on every
// busy CPU, counts one tick of busy time when it interrupts a task that is not idle, as
// the kernel's tick accounting does; no interrupts of its own); or sampled, by
// weft_cpu_sample on a per-CPU software cpu-clock perf event at a fixed rate (~1 kHz).
// The last two cost nothing per switch; in those modes sched_switch only records
// run-queue waits, and user space attaches it part of the time.
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ebpf/load_types.h"

char LICENSE[] SEC("license") = "GPL";

#define TASK_RUNNING 0
#define barrier() asm volatile("" ::: "memory")

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct weft_cpu_stats);
} cpu_stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, WEFT_MAX_WATCHED);
  __type(key, __u32);
  __type(value, __u64);
} cgroup_busy SEC(".maps");

/* cgroup id (kernfs inode) -> slot in cgroup_busy; written by user space. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, WEFT_MAX_WATCHED);
  __type(key, __u64);
  __type(value, __u32);
} watched SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, WEFT_RUNQ_START_SLOTS);
  __type(key, __u32);
  __type(value, struct weft_runq_start);
} runq_start SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 8192);
  __type(key, __u32);
  __type(value, __u64);
} reclaim_start SEC(".maps");

/* Set before load: false leaves the run-queue latency work out (the wakeup programs are
 * then not loaded either), for nodes where the switch-storm overhead matters more. */
const volatile bool runq_enabled = true;

/* Set before load when the kernel keeps task->sched_info (CONFIG_SCHED_INFO): the
 * scheduler itself stamps when a task was queued (sched_info.last_queued, in its rq
 * clock), so at switch-in the wait is this CPU's rq->clock (updated just before the
 * tracepoint) minus that stamp; no wakeup programs and no map of wait starts. */
const volatile bool runq_sched_info = false;

/* Set before load: false when weft_cpu_sample times busy intervals; sched_switch then
 * only records run-queue waits. */
const volatile bool busy_from_switch = true;

/* Tick mode: address of the function of the tick's hrtimer (tick_nohz_handler, or
 * tick_sched_timer before 6.9), set before load from kallsyms; 0 leaves weft_tick idle. */
const volatile __u64 tick_fn = 0;

/* Sampled mode: the sample period, the busy time one sample stands for. */
const volatile __u64 sample_period_ns = 0;
extern unsigned int CONFIG_HZ __kconfig __weak;

/* Number of entries in `watched`; 0 skips the cgroup walk on every switch. */
volatile __u32 watch_count = 0;

/* Kernels before 5.14 call the field `state`. */
struct task_struct___pre514 {
  long state;
} __attribute__((preserve_access_index));

/* prev is the current task at sched_switch: its fields are read through the BTF
 * pointer (a plain load) instead of a bpf_probe_read_kernel() call. */
static __always_inline long current_state(void) {
  struct task_struct *t = bpf_get_current_task_btf();
  if (bpf_core_field_exists(t->__state)) return t->__state;
  return ((struct task_struct___pre514 *)t)->state;
}

static __always_inline void mark_queued(__u32 pid, __u64 now) {
  __u32 idx = pid & (WEFT_RUNQ_START_SLOTS - 1);
  struct weft_runq_start *s = bpf_map_lookup_elem(&runq_start, &idx);
  if (!s) return;
  s->pid = pid;
  s->ts = now;
}

static __always_inline __u32 log2_bucket(__u64 v) {
  __u32 b = 0;
#pragma unroll
  for (int shift = 32; shift > 0; shift >>= 1) {
    if (v >= (1ULL << shift)) {
      v >>= shift;
      b += shift;
    }
  }
  return b < WEFT_RUNQ_BUCKETS ? b : WEFT_RUNQ_BUCKETS - 1;
}

static __always_inline void add_runq_wait(struct weft_cpu_stats *st, __u64 wait) {
  __u32 b = log2_bucket(wait);
  if (b < WEFT_RUNQ_BUCKETS) st->runq[b]++;
  st->runq_sum_ns += wait;
}

static __always_inline void count_runq_wait(struct weft_cpu_stats *st, __u32 pid, __u64 now) {
  __u32 idx = pid & (WEFT_RUNQ_START_SLOTS - 1);
  struct weft_runq_start *s = bpf_map_lookup_elem(&runq_start, &idx);
  if (!s || s->pid != pid || s->ts == 0 || s->ts > now) return;
  __u64 wait = now - s->ts;
  s->ts = 0;
  add_runq_wait(st, wait);
}

/* Kernels without CONFIG_SCHED_INFO have no task->sched_info; without
 * CONFIG_FAIR_GROUP_SCHED no se.cfs_rq / cfs_rq->rq. User space checks BTF first. */
struct task_struct___sched_info {
  struct sched_info sched_info;
  struct sched_entity se;
} __attribute__((preserve_access_index));

/* Turns an untyped kernel pointer (raw_tp arguments are plain u64) into a typed one
 * whose fields are read with plain faulting-safe loads instead of a helper call each.
 * Only the sched_info method uses it (user space falls back when it is refused). */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* This CPU's rq->clock, updated by __schedule() just before the tracepoint; 0 when
 * the run queue is not known yet. */
static __always_inline __u64 read_rq_clock(struct weft_cpu_stats *st, struct task_struct *next) {
  if (!st->rq_clock) {
    /* A task switching in here is on this CPU's run queue. */
    struct task_struct___sched_info *t = (void *)next;
    struct rq *rq = BPF_CORE_READ(t, se.cfs_rq, rq);
    if (!rq) return 0;
    st->rq_clock = (__u64)rq;
  }
  struct rq *rq = bpf_rdonly_cast((void *)st->rq_clock, bpf_core_type_id_kernel(struct rq));
  return rq->clock;
}

static __always_inline void count_queued_wait(struct weft_cpu_stats *st, struct task_struct *next, __u64 clock) {
  struct task_struct___sched_info *t =
      bpf_rdonly_cast(next, bpf_core_type_id_kernel(struct task_struct___sched_info));
  __u64 queued = t->sched_info.last_queued;
  if (queued && clock >= queued) add_runq_wait(st, clock - queued);
}

/* Slots of the watched cgroups that `t`'s cgroup is in or below. */
static __always_inline void find_slots(struct weft_cpu_stats *st, struct task_struct *t) {
  st->nslots = 0;
  if (!watch_count) return;
  struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
  __u32 n = 0;
  for (int depth = 0; depth < WEFT_MAX_CGROUP_DEPTH && cg; depth++) {
    __u64 id = BPF_CORE_READ(cg, kn, id);
    __u32 *slot = bpf_map_lookup_elem(&watched, &id);
    if (slot && n < WEFT_MAX_SLOTS) {
      st->slots[n & (WEFT_MAX_SLOTS - 1)] = (__u8)*slot;
      n++;
    }
    struct cgroup_subsys_state *parent = BPF_CORE_READ(cg, self.parent);
    if (!parent) break;
    cg = (struct cgroup *)((char *)parent - bpf_core_field_offset(struct cgroup, self));
  }
  st->nslots = n;
}

static __always_inline void add_cgroup_time(struct weft_cpu_stats *st, __u64 delta) {
  for (__u32 i = 0; i < WEFT_MAX_SLOTS; i++) {
    if (i >= st->nslots) break;
    __u32 slot = st->slots[i];
    __u64 *busy = bpf_map_lookup_elem(&cgroup_busy, &slot);
    if (busy) *busy += delta;
  }
}

SEC("raw_tp/sched_switch")
int BPF_PROG(weft_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next) {
  __u32 zero = 0;
  struct weft_cpu_stats *st = bpf_map_lookup_elem(&cpu_stats, &zero);
  if (!st) return 0;
  if (!busy_from_switch && runq_enabled && runq_sched_info) {
    /* Run-queue waits only: the idle task is never queued (last_queued stays 0). */
    __u64 clock = read_rq_clock(st, next);
    if (clock) count_queued_wait(st, next, clock);
    st->switches++;
    return 0;
  }
  /* With sched_info, time comes from the scheduler's rq clock, which the run-queue
   * waits need anyway; reading our own clock costs more than the rest of the program
   * on some machines, so it is read only every 64th switch, to map the two clocks. */
  __u64 now = 0;
  bool clock_changed = false;
  if (runq_enabled && runq_sched_info) {
    /* (Only in the exact mode: the sampled one returned above.) */
    now = read_rq_clock(st, next);
    /* The first switch timed by the rq clock must not close an interval opened by
     * bpf_ktime_get_ns(). */
    clock_changed = now && !st->calib_mono_ns;
    if (now && (!st->calib_mono_ns || (st->switches & 63) == 0)) {
      st->calib_mono_ns = bpf_ktime_get_ns();
      st->calib_rq_ns = now;
    }
  }
  bool rq_time = now != 0;
  if (!rq_time) now = bpf_ktime_get_ns();
  /* next is the idle task (pid 0) when it is this CPU's idle task, known by address
   * once the idle task has been seen switching out; that saves a probe read of
   * next->pid on most switches. */
  __u32 prev_pid = (__u32)bpf_get_current_pid_tgid();
  if (!prev_pid) st->idle_task = (__u64)prev;
  bool next_idle;
  __u32 next_pid = 1;
  if (st->idle_task) {
    next_idle = (__u64)next == st->idle_task;
  } else {
    next_pid = BPF_CORE_READ(next, pid);
    next_idle = next_pid == 0;
  }

  if (runq_enabled && runq_sched_info) {
    if (!next_idle && rq_time) count_queued_wait(st, next, now);
  } else if (runq_enabled) {
    /* A task switched out while still runnable waits on the run queue from now. */
    if (prev_pid && current_state() == TASK_RUNNING) mark_queued(prev_pid, now);
    if (!next_idle) {
      if (st->idle_task) next_pid = BPF_CORE_READ(next, pid);
      count_runq_wait(st, next_pid, now);
    }
  }

  if (!busy_from_switch) {
    st->switches++;
    return 0;
  }

  /* A task can start running here without this program seeing its switch-in (seen on
   * this kernel a few times a second, e.g. around a short-lived kthread); then the
   * state describes the wrong task, and the interval being closed belongs to prev. */
  bool unseen = st->cur_task && st->cur_task != (__u64)prev;

  /* seq: only this program writes these fields, with interrupts off, so no atomics are
   * needed; the barriers keep the compiler from moving stores across the seq bumps
   * (x86 keeps stores in order; elsewhere the reader's double read is best effort). */
  st->seq++;
  barrier();
  if (unseen) {
    st->unseen_switches++;
    st->running = prev_pid != 0;
    if (prev_pid)
      find_slots(st, prev);
    else
      st->nslots = 0;
  }
  if (st->last_switch_ns && st->running && now > st->last_switch_ns && !clock_changed) {
    __u64 delta = now - st->last_switch_ns;
    st->busy_ns += delta;
    add_cgroup_time(st, delta);
  }
  st->last_switch_ns = now;
  st->running = !next_idle;
  if (!next_idle)
    find_slots(st, next);
  else
    st->nslots = 0;
  st->cur_task = (__u64)next;
  st->switches++;
  barrier();
  st->seq++;
  return 0;
}

/* Sampled busy time: every cpu-clock sample that finds a task other than the idle task
 * running adds one sample period to the CPU and to that task's watched cgroups, like the
 * tick below at its own rate. (Timing the interval between samples instead misreads an
 * idle CPU: the event is rarely delivered there, so the gap after the last busy sample
 * would count as busy; a cap on it is biased whenever the load comes in bursts.) Nothing
 * stays open for the reader to add. Runs in hard-irq context on its CPU, never inside
 * sched_switch (which runs with interrupts off). */
SEC("perf_event")
int weft_cpu_sample(void *ctx) {
  __u32 zero = 0;
  struct weft_cpu_stats *st = bpf_map_lookup_elem(&cpu_stats, &zero);
  if (!st) return 0;
  __u32 pid = (__u32)bpf_get_current_pid_tgid();
  st->seq++;
  barrier();
  if (pid) {
    find_slots(st, (struct task_struct *)bpf_get_current_task());
    st->busy_ns += sample_period_ns;
    add_cgroup_time(st, sample_period_ns);
  }
  st->samples++;
  barrier();
  st->seq++;
  return 0;
}

/* Busy time from the scheduler tick: every expiry of this CPU's tick timer while a task
 * other than the idle task runs adds the tick periods since the previous tick, to the
 * CPU and to the task's watched cgroups: one period, plus any the tick was late by (a
 * vCPU held up by the host: the kernel then skips the missed expiries). Idle CPUs stop
 * their tick (NOHZ) and add nothing; a restarted tick is never late. Other hrtimers
 * return at the first comparison. */
SEC("raw_tp/hrtimer_expire_entry")
int BPF_PROG(weft_tick, struct hrtimer *timer, ktime_t *now) {
  if (!tick_fn || !CONFIG_HZ) return 0;
  /* Plain loads through a typed pointer rather than a probe-read call each: this runs
   * for every hrtimer expiry. */
  struct hrtimer *t = bpf_rdonly_cast(timer, bpf_core_type_id_kernel(struct hrtimer));
  if ((__u64)t->function != tick_fn) return 0;
  __u32 zero = 0;
  struct weft_cpu_stats *st = bpf_map_lookup_elem(&cpu_stats, &zero);
  if (!st) return 0;
  st->samples++;
  if (!(__u32)bpf_get_current_pid_tgid()) return 0;
  __u64 period = 1000000000ULL / CONFIG_HZ;
  __s64 at = (__s64)bpf_ktime_get_ns(); /* the tick's clock base is CLOCK_MONOTONIC */
  __s64 expires = t->node.expires;
  __u64 ticks = 1;
  if (at > expires) {
    __u64 late = (__u64)(at - expires) / period;
    ticks += late < CONFIG_HZ ? late : CONFIG_HZ; /* at most a second */
  }
  __u64 busy = ticks * period;
  st->seq++;
  barrier();
  st->busy_ns += busy;
  find_slots(st, (struct task_struct *)bpf_get_current_task());
  add_cgroup_time(st, busy);
  st->nslots = 0; /* no open interval: ticks are counted whole */
  barrier();
  st->seq++;
  return 0;
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(weft_sched_wakeup, struct task_struct *p) {
  __u32 pid = BPF_CORE_READ(p, pid);
  if (pid) mark_queued(pid, bpf_ktime_get_ns());
  return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(weft_sched_wakeup_new, struct task_struct *p) {
  __u32 pid = BPF_CORE_READ(p, pid);
  if (pid) mark_queued(pid, bpf_ktime_get_ns());
  return 0;
}

SEC("raw_tp/mm_vmscan_direct_reclaim_begin")
int weft_reclaim_begin(void *ctx) {
  __u32 pid = (__u32)bpf_get_current_pid_tgid();
  __u64 now = bpf_ktime_get_ns();
  bpf_map_update_elem(&reclaim_start, &pid, &now, BPF_ANY);
  return 0;
}

SEC("raw_tp/mm_vmscan_direct_reclaim_end")
int weft_reclaim_end(void *ctx) {
  __u32 pid = (__u32)bpf_get_current_pid_tgid();
  __u64 *start = bpf_map_lookup_elem(&reclaim_start, &pid);
  if (!start) return 0;
  __u64 now = bpf_ktime_get_ns();
  __u64 begun = *start;
  bpf_map_delete_elem(&reclaim_start, &pid);
  if (now <= begun) return 0;
  __u32 zero = 0;
  struct weft_cpu_stats *st = bpf_map_lookup_elem(&cpu_stats, &zero);
  if (!st) return 0;
  /* Atomic: these programs run preemptible, unlike sched_switch. */
  __sync_fetch_and_add(&st->reclaim_ns, now - begun);
  __sync_fetch_and_add(&st->reclaim_count, 1);
  return 0;
}
