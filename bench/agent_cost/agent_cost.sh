#!/usr/bin/env bash
# bench/agent_cost: weft-agent and prometheus-node-exporter side by side, both scraped
# every --interval for --duration; prints RSS, CPU seconds and scrape latency of each.
#
#   bench/agent_cost/agent_cost.sh [--agent BUILD/node-agent/weft-agent] [--duration 300]
#                                  [--interval 15] [--exporter /usr/bin/prometheus-node-exporter]
#
# Three processes run at once on loopback: the agent with its default load backend
# (eBPF when it loads, as in the DaemonSet), the agent with the procfs backend, and
# node_exporter with its default collectors. Both agents run with --no-publish (no API
# server here) and the DaemonSet's intervals (--ib-interval 30s --load-interval 5s).
# CPU seconds are the process's utime+stime (/proc/PID/stat); the eBPF programs' own
# run time is charged to the tasks that switch, not to the agent: bench/load_overhead
# measures it. RSS is VmRSS at the end and VmHWM (peak).
set -euo pipefail

agent=""
duration=300
interval=15
exporter=/usr/bin/prometheus-node-exporter
while [[ $# -gt 0 ]]; do
  case "$1" in
    --agent) agent="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --interval) interval="$2"; shift 2 ;;
    --exporter) exporter="$2"; shift 2 ;;
    -h|--help) sed -n 2,14p "$0"; exit 0 ;;
    *) echo "agent_cost: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
here="$(cd "$(dirname "$0")" && pwd)"
if [[ -z "$agent" ]]; then
  for b in "$here/../../build/node-agent/weft-agent" "$here"/../../build-*/node-agent/weft-agent; do
    [[ -x "$b" ]] && { agent="$b"; break; }
  done
fi
[[ -x "$agent" ]] || { echo "agent_cost: weft-agent not found (give --agent PATH)" >&2; exit 2; }
[[ -x "$exporter" ]] || { echo "agent_cost: $exporter not found (apt-get install prometheus-node-exporter)" >&2; exit 2; }
[[ "$duration" =~ ^[0-9]+$ && "$interval" =~ ^[0-9]+$ && "$interval" -gt 0 ]] ||
  { echo "agent_cost: --duration and --interval are whole seconds" >&2; exit 2; }

work="$(mktemp -d /tmp/agent_cost.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  sleep 1
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
              shuf -i 20000-60000 -n 1; }

names=(agent-default agent-procfs node_exporter)
ports=()
for n in "${names[@]}"; do ports+=("$(free_port)"); done
"$agent" run --node-name bench --no-publish --listen "127.0.0.1:${ports[0]}" \
  --ib-interval 30s --load-interval 5s >"$work/agent-default.log" 2>&1 &
pids+=($!)
"$agent" run --node-name bench --no-publish --listen "127.0.0.1:${ports[1]}" --load-backend procfs \
  --ib-interval 30s --load-interval 5s >"$work/agent-procfs.log" 2>&1 &
pids+=($!)
"$exporter" --web.listen-address="127.0.0.1:${ports[2]}" >"$work/node_exporter.log" 2>&1 &
pids+=($!)

for i in 0 1 2; do
  for _ in $(seq 100); do
    curl -sf -o /dev/null "http://127.0.0.1:${ports[$i]}/metrics" && break
    sleep 0.1
  done
  curl -sf -o /dev/null "http://127.0.0.1:${ports[$i]}/metrics" ||
    { echo "agent_cost: ${names[$i]} did not serve /metrics:"; cat "$work/${names[$i]}.log"; exit 1; }
done

ticks=$(getconf CLK_TCK)
cpu_seconds() { awk -v t="$ticks" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
declare -a cpu0
for i in 0 1 2; do cpu0[$i]=$(cpu_seconds "${pids[$i]}"); done

echo "agent_cost: ${duration}s, scrape every ${interval}s; agent $agent; $("$exporter" --version 2>&1 | head -1)"
end=$((SECONDS + duration))
while (( SECONDS < end )); do
  for i in 0 1 2; do
    curl -s -o "$work/${names[$i]}.last" -w '%{time_total} %{size_download}\n' \
      "http://127.0.0.1:${ports[$i]}/metrics" >>"$work/${names[$i]}.lat"
  done
  sleep "$interval"
done

# The load source is reported after the first summary, so it is read at the end.
source_line="$(curl -s "http://127.0.0.1:${ports[0]}/metrics" | grep '^weft_agent_load_source' || true)"
echo "agent default backend: ${source_line:-unknown}"
printf '\n%-16s %10s %10s %12s %12s %12s %12s %9s\n' process rss_MiB peak_MiB cpu_s cpu_ms_per_s \
  scrape_p50_ms scrape_max_ms bytes
for i in 0 1 2; do
  p=${pids[$i]}
  kill -0 "$p" 2>/dev/null || { echo "agent_cost: ${names[$i]} died:"; cat "$work/${names[$i]}.log"; exit 1; }
  rss=$(status_kb "$p" VmRSS); hwm=$(status_kb "$p" VmHWM)
  cpu=$(awk -v a="$(cpu_seconds "$p")" -v b="${cpu0[$i]}" 'BEGIN { printf "%.2f", a - b }')
  per=$(awk -v c="$cpu" -v d="$duration" 'BEGIN { printf "%.2f", (d > 0) ? 1000 * c / d : 0 }')
  read -r p50 max bytes < <(sort -n "$work/${names[$i]}.lat" |
    awk '{ t[NR] = $1; b = $2 } END { printf "%.2f %.2f %d\n", 1000 * t[int((NR + 1) / 2)], 1000 * t[NR], b }')
  printf '%-16s %10.1f %10.1f %12s %12s %12s %12s %9s\n' "${names[$i]}" "$(awk -v k="$rss" 'BEGIN{print k/1024}')" \
    "$(awk -v k="$hwm" 'BEGIN{print k/1024}')" "$cpu" "$per" "$p50" "$max" "$bytes"
done
echo "(cpu_s: user+system seconds of the process during the run; scrape: wall time of one GET /metrics; bytes: last body)"
