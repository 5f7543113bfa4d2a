// Bench fixture, never used by weft: empty programs on the tracepoints load.bpf.c
// uses, so bench/load_overhead can show the cost of any raw tracepoint program on
// this kernel beside the cost of the real ones.
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("raw_tp/sched_switch")
int weft_floor_switch(void *ctx) { return 0; }
