#!/bin/sh
# bench/native_gang: Kubernetes' gang API at LLM size through kube-lite.
#   run.sh BUILD_DIR [--case NAME]... [--runs N] [--json FILE] [more flags of weft-bench-native-gang]
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [--case big-gang|SCHEDULER_PERF_WORKLOAD]... [--runs N] [--json FILE]" >&2
  exit 2
fi
build=$1
shift
for b in bench/native_gang/weft-bench-native-gang tools/kube-lite/kube-lite scheduler/weft-scheduler; do
  if [ ! -x "$build/$b" ]; then
    echo "$0: $build/$b is not built (cmake --build $build --target $(basename "$b"))" >&2
    exit 2
  fi
done
exec "$build/bench/native_gang/weft-bench-native-gang" \
  --kube-lite "$build/tools/kube-lite/kube-lite" --scheduler "$build/scheduler/weft-scheduler" "$@"
