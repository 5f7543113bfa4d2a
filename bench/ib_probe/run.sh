#!/bin/bash
# bench/ib_probe: weft-agent probe vs ibnetdiscover from the same host of generated
# 2-level fat trees (ibsim + OpenSM), in one run. Usage: run.sh BUILD_DIR [hosts...]
# Columns (medians of REPS runs, seconds):
#   probe_s          `weft-agent probe --sample-seconds 0`, whole process
#   ibnetdiscover_s  `ibnetdiscover`, whole process
#   ratio            ibnetdiscover_s / probe_s
#   in_proc_s        the IB probe alone (ib.probe_seconds of the report: no process start)
#   sminfo_s         `sminfo`: one process sending one MAD, the floor of any umad2sim client
set -u
B=${1:?build dir}; shift
SIZES=${*:-64 256 1024}
U=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
REPS=${REPS:-9}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
printf "%6s %10s %16s %7s %10s %9s\n" hosts probe_s ibnetdiscover_s ratio in_proc_s sminfo_s
for n in $SIZES; do
  d=$(mktemp -d); sock=weft-bench-$$-$n
  "$B/tools/fat-tree/weft-fat-tree" --hosts "$n" --hosts-per-leaf 16 --spines 8 --fabric 90 -o "$d/f.net"
  mkfifo "$d/in"; IBSIM_SOCKNAME=$sock ibsim -s "$d/f.net" < "$d/in" > "$d/ibsim.log" 2>&1 & sim=$!
  exec 9>"$d/in"; sleep 1
  printf 'force_log_flush TRUE\ndump_files_dir %s\n' "$d" > "$d/osm.conf"
  (cd "$d" && OSM_CACHE_DIR=$d LD_PRELOAD=$U SIM_HOST=f90-h0000 IBSIM_SOCKNAME=$sock exec opensm -F "$d/osm.conf" -f "$d/osm.log" >/dev/null 2>&1) & sm=$!
  for i in $(seq 600); do grep -q "SUBNET UP" "$d/osm.log" 2>/dev/null && break; sleep 0.1; done
  host=f90-h$(printf %04d $((n - 1)))
  pushd "$d" >/dev/null   # umad2sim writes its sys-<pid> tree into the working directory
  export LD_PRELOAD=$U SIM_HOST=$host IBSIM_SOCKNAME=$sock
  p=$(for i in $(seq $REPS); do t "$B/node-agent/weft-agent" probe --sample-seconds 0; done | median)
  q=$(for i in $(seq $REPS); do t ibnetdiscover; done | median)
  s=$(for i in $(seq $REPS); do t sminfo; done | median)
  ip=$(for i in $(seq $REPS); do "$B/node-agent/weft-agent" probe --sample-seconds 0 2>/dev/null |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["ib"]["probe_seconds"])'; done | median)
  unset LD_PRELOAD SIM_HOST IBSIM_SOCKNAME
  popd >/dev/null
  printf "%6s %10.4f %16.4f %7.1f %10.4f %9.4f\n" "$n" "$p" "$q" "$(echo "$q / $p" | bc -l)" "$ip" "$s"
  kill $sm; sleep 0.3; kill -9 $sm 2>/dev/null; exec 9>&-; kill $sim 2>/dev/null; sleep 0.2; kill -9 $sim 2>/dev/null
  wait $sm $sim 2>/dev/null; rm -rf "$d"
done
