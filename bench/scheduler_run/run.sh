#!/bin/sh
# bench/scheduler_run: weft-scheduler run through kube-lite at 5,000 GPU nodes.
#   run.sh BUILD_DIR [--json FILE] [more flags of weft-bench-scheduler-run]
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [--json FILE] [--nodes N] [--pods N] [--node-memory 2Ti] ..." >&2
  exit 2
fi
build=$1
shift
for b in bench/scheduler_run/weft-bench-scheduler-run tools/kube-lite/kube-lite scheduler/weft-scheduler \
         descheduler/weft-descheduler; do
  if [ ! -x "$build/$b" ]; then
    echo "$0: $build/$b is not built (cmake --build $build --target $(basename "$b"))" >&2
    exit 2
  fi
done
exec "$build/bench/scheduler_run/weft-bench-scheduler-run" \
  --kube-lite "$build/tools/kube-lite/kube-lite" \
  --scheduler "$build/scheduler/weft-scheduler" \
  --descheduler "$build/descheduler/weft-descheduler" "$@"
