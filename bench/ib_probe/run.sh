#!/bin/bash
# bench/ib_probe: weft-agent probe vs ibnetdiscover from the same host of generated
# 2-level fat trees (ibsim + OpenSM). Usage: run.sh BUILD_DIR [hosts...]
set -u
B=${1:?build dir}; shift
SIZES=${*:-64 256 1024}
U=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
REPS=5
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
printf "%6s %12s %16s %7s\n" hosts probe_s ibnetdiscover_s ratio
for n in $SIZES; do
  d=$(mktemp -d); sock=weft-bench-$$-$n
  "$B/tools/fat-tree/weft-fat-tree" --hosts "$n" --hosts-per-leaf 16 --spines 8 --fabric 90 -o "$d/f.net"
  mkfifo "$d/in"; IBSIM_SOCKNAME=$sock ibsim -s "$d/f.net" < "$d/in" > "$d/ibsim.log" 2>&1 & sim=$!
  exec 9>"$d/in"; sleep 1
  printf 'force_log_flush TRUE\ndump_files_dir %s\n' "$d" > "$d/osm.conf"
  OSM_CACHE_DIR=$d LD_PRELOAD=$U SIM_HOST=f90-h0000 IBSIM_SOCKNAME=$sock opensm -F "$d/osm.conf" -f "$d/osm.log" >/dev/null 2>&1 & sm=$!
  for i in $(seq 600); do grep -q "SUBNET UP" "$d/osm.log" 2>/dev/null && break; sleep 0.1; done
  host=f90-h$(printf %04d $((n - 1)))
  export LD_PRELOAD=$U SIM_HOST=$host IBSIM_SOCKNAME=$sock
  p=$(for i in $(seq $REPS); do t "$B/node-agent/weft-agent" probe --sample-seconds 0; done | median)
  q=$(for i in $(seq $REPS); do t ibnetdiscover; done | median)
  unset LD_PRELOAD SIM_HOST IBSIM_SOCKNAME
  printf "%6s %12.4f %16.4f %7.1f\n" "$n" "$p" "$q" "$(echo "$q / $p" | bc -l)"
  kill $sm; sleep 0.3; kill -9 $sm 2>/dev/null; exec 9>&-; kill $sim 2>/dev/null; sleep 0.2; kill -9 $sim 2>/dev/null
  wait $sm $sim 2>/dev/null; rm -rf "$d"
done
