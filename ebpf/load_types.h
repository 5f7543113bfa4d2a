/* Layouts shared by load.bpf.c and collectors/load (user space reads these maps). */
#ifndef WEFT_EBPF_LOAD_TYPES_H
#define WEFT_EBPF_LOAD_TYPES_H

#define WEFT_RUNQ_BUCKETS 48     /* log2(ns) buckets: bucket b holds [2^b, 2^(b+1)) ns */
#define WEFT_MAX_WATCHED 256     /* cgroups whose busy time is attributed (slots are __u8) */
#define WEFT_MAX_CGROUP_DEPTH 16 /* ancestors walked from a task's cgroup */
#define WEFT_MAX_SLOTS 8         /* watched cgroups one task can count towards */
#define WEFT_RUNQ_START_SLOTS 65536

/* One per CPU. seq is odd while the program that times busy intervals (sched_switch in
 * the exact mode, the cpu-clock sample program in the sampled mode) updates the busy
 * fields, so a reader can tell a torn copy from a clean one. In the sampled mode an
 * "interval" runs from one sample to the next and `running` is what the last sample saw. */
struct weft_cpu_stats {
  __u64 seq;
  __u64 busy_ns;        /* non-idle time closed at a switch */
  __u64 last_switch_ns; /* time of the last switch (see calib_*); 0: none yet */
  __u32 running;        /* the task switched in at last_switch_ns is not the idle task */
  __u32 nslots;         /* how many of slots[] apply to that task */
  __u8 slots[WEFT_MAX_SLOTS];
  __u64 switches;
  __u64 idle_task;      /* address of this CPU's idle task, learnt when it switches out */
  __u64 cur_task;       /* address of the task switched in at last_switch_ns */
  __u64 unseen_switches; /* switch-outs of a task whose switch-in was not seen here */
  __u64 rq_clock;       /* address of this CPU's struct rq, learnt from a task switching in */
  /* When times are taken from rq->clock (no clock read of our own on each switch), one
   * pair of (rq->clock, bpf_ktime_get_ns()) taken at the same switch every 64 switches,
   * so user space can map CLOCK_MONOTONIC to this CPU's rq clock; 0 when times are
   * bpf_ktime_get_ns() already. */
  __u64 calib_rq_ns;
  __u64 calib_mono_ns;
  __u64 runq[WEFT_RUNQ_BUCKETS];
  __u64 runq_sum_ns;
  __u64 reclaim_ns;
  __u64 reclaim_count;
  __u64 samples;        /* runs of the sampling program (sampled) or ticks seen (tick mode) on this CPU */
};

/* Start of a run-queue wait, indexed by pid % WEFT_RUNQ_START_SLOTS; a pid mismatch
 * (two waiting tasks colliding) drops that one sample instead of costing a hash map. */
struct weft_runq_start {
  __u32 pid;
  __u32 pad;
  __u64 ts;
};

#endif
