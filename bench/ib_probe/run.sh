#!/bin/bash
# bench/ib_probe: weft-agent probe vs ibnetdiscover from the same host of generated
# 2-level fat trees (ibsim + OpenSM), in one run. Usage: run.sh BUILD_DIR [hosts...]
# Columns (medians of REPS runs, seconds):
#   probe_s          `weft-agent probe --sample-seconds 0`, whole process
#   ibnetdiscover_s  `ibnetdiscover`, whole process
#   ratio            ibnetdiscover_s / probe_s
#   best_x           fastest ibnetdiscover / fastest probe. ibnetdiscover's time is bimodal here:
#                    ~0.29 s at 1,024 hosts on an idle machine, ~0.14 s while another job keeps
#                    the cores awake (its ~5,000 MADs are sequential round trips to ibsim, and an
#                    idle vCPU is slow to wake for each); the probe is dominated by fixed costs.
#   start_s          `weft-agent --help` under umad2sim: weft-agent's own process start and exit
#   reprobe_s        one more probe in a process that has probed before (what `weft-agent run`
#                    pays every 30 s): ib.probe_seconds of probes 2..10 of tests/ib/ib_probe_loop
#   sminfo_s         `sminfo`: a process sending ONE MAD, the floor of any umad2sim client
#   mads             MADs one probe of the host sends (the same probe through tests/ib/ib_sim_probe,
#                    which counts them)
# umad2sim writes a fake sysfs tree into the working directory of every process and removes
# it at exit, so the per-process floor depends on that file system: WORKDIR (default
# /dev/shm, in memory like a real sysfs) is where every command runs.
set -u
B=$(cd "${1:?build dir}" && pwd) || exit 2; shift   # absolute: the commands run in WORKDIR
SIZES=${*:-64 256 1024}
U=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
REPS=${REPS:-15}
WORKDIR=${WORKDIR:-/dev/shm}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
fastest() { sort -n | head -1; }
# Wall time of one command attached to the fabric as $host (no helper process inside the interval).
t() { local s e; s=$EPOCHREALTIME; LD_PRELOAD=$U SIM_HOST=$host IBSIM_SOCKNAME=$sock "$@" >/dev/null 2>&1; e=$EPOCHREALTIME; echo "$e - $s" | bc; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%6s %8s %15s %6s %6s %9s %8s %8s %5s\n" hosts probe_s ibnetdiscover_s ratio best_x reprobe_s sminfo_s start_s mads
for n in $SIZES; do
  d=$(mktemp -d); sock=weft-bench-$$-$n
  "$B/tools/fat-tree/weft-fat-tree" --hosts "$n" --hosts-per-leaf 16 --spines 8 --fabric 90 -o "$d/f.net"
  mkfifo "$d/in"; IBSIM_SOCKNAME=$sock ibsim -s "$d/f.net" < "$d/in" > "$d/ibsim.log" 2>&1 & sim=$!
  exec 9>"$d/in"; sleep 1
  printf 'force_log_flush TRUE\ndump_files_dir %s\n' "$d" > "$d/osm.conf"
  (cd "$d" && OSM_CACHE_DIR=$d LD_PRELOAD=$U SIM_HOST=f90-h0000 IBSIM_SOCKNAME=$sock exec opensm -F "$d/osm.conf" -f "$d/osm.log" >/dev/null 2>&1) & sm=$!
  for i in $(seq 600); do grep -q "SUBNET UP" "$d/osm.log" 2>/dev/null && break; sleep 0.1; done
  host=f90-h$(printf %04d $((n - 1)))
  pushd "$WORKDIR" >/dev/null
  # Interleaved, so a busy moment of the machine hits all three alike.
  for i in $(seq $REPS); do
    t "$B/node-agent/weft-agent" probe --sample-seconds 0 >> "$d/p"; t ibnetdiscover >> "$d/q"; t sminfo >> "$d/s"
    t "$B/node-agent/weft-agent" --help >> "$d/v"
  done
  p=$(median < "$d/p"); q=$(median < "$d/q"); s=$(median < "$d/s"); v=$(median < "$d/v")
  ip=$(for i in $(seq 10); do echo probe; done |
         LD_PRELOAD=$U SIM_HOST=$host IBSIM_SOCKNAME=$sock "$B/tests/ib/ib_probe_loop" 2>/dev/null | tail -n +2 |
         python3 -c 'import json,sys; [print(json.loads(l.split(" ", 2)[2])["ib"]["probe_seconds"]) for l in sys.stdin]' | median)
  mads=$("$B/tests/ib/ib_sim_probe" --hca "mlx5_0=$sock:$host" | jq -r .mads)
  popd >/dev/null
  bx=$(echo "$(fastest < "$d/q") / $(fastest < "$d/p")" | bc -l)
  printf "%6s %8.4f %15.4f %6.1f %6.1f %9.4f %8.4f %8.4f %5s\n" "$n" "$p" "$q" "$(echo "$q / $p" | bc -l)" "$bx" \
    "$ip" "$s" "$v" "$mads"
  kill $sm; sleep 0.3; kill -9 $sm 2>/dev/null; exec 9>&-; kill $sim 2>/dev/null; sleep 0.2; kill -9 $sim 2>/dev/null
  wait $sm $sim 2>/dev/null; rm -rf "$d"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
