#!/bin/sh
# bench/scheduler_affinity: scheduler_perf's affinity workloads through kube-lite.
#   run.sh BUILD_DIR [--workload NAME]... [--runs N] [--json FILE] [more flags of affinity_bench]
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [--workload SchedulingPodAntiAffinity]... [--runs N] [--json FILE]" >&2
  exit 2
fi
build=$1
shift
for b in bench/scheduler_affinity/affinity_bench tools/kube-lite/kube-lite scheduler/weft-scheduler; do
  if [ ! -x "$build/$b" ]; then
    echo "$0: $build/$b is not built (cmake --build $build --target $(basename "$b"))" >&2
    exit 2
  fi
done
exec "$build/bench/scheduler_affinity/affinity_bench" \
  --kube-lite "$build/tools/kube-lite/kube-lite" --scheduler "$build/scheduler/weft-scheduler" "$@"
