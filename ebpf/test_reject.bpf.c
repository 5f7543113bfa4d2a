// Test fixture, never attached by weft: dereferences a hash map lookup without the
// NULL check (a hash lookup can miss; recent verifiers know constant-key array lookups
// are non-NULL), so the verifier must refuse it. tests/load checks that a rejection
// comes back as an error carrying the verifier's own lines.
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} counter SEC(".maps");

SEC("raw_tp/sched_switch")
int weft_rejected(void *ctx) {
  __u32 zero = 0;
  __u64 *v = bpf_map_lookup_elem(&counter, &zero);
  return (int)*v;
}
