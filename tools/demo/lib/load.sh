# Step 3: real load. Every simulated node gets a process burning CPU inside its own
# cgroup (a background share that differs from node to node); each agent measures only
# its node's cgroup, so the loads Prometheus shows come from the kernel, not the script.

# burn NAME NODE GROUP FRACTION: a burner using FRACTION of NODE's CPU capacity, in
# the cgroup NODE/GROUP.
burn() {
  local name=$1 node=$2 group=$3 fraction=$4 cores
  cores=$(awk -v f="$fraction" -v c="$NODE_CPUS" 'BEGIN { printf "%.5f", f * c }')
  mkdir -p "$CGROOT/$node/$group"
  start_proc "burn-$name" "$BIN/weft-node-runtime" burn --cores "$cores" --cgroup "$CGROOT/$node/$group"
}

# Background share per node: 3, 8 or 13 % of its capacity, by position.
background_share() { awk -v i="$1" 'BEGIN { printf "%.2f", 0.03 + 0.05 * (i % 3) }'; }

step_load() {
  step 3 "real CPU load inside each node's own cgroup, measured by its agent"
  local i=0 h
  declare -gA BACKGROUND
  for h in $(all_hosts); do
    BACKGROUND[$h]=$(background_share $i)
    burn "background-$h" "$h" background "${BACKGROUND[$h]}"
    i=$((i + 1))
  done
  info "each node burns 3, 8 or 13 % of its $NODE_CPUS-core share in $CGROOT/<node>/background"
  local wait_s=$((LOAD_WINDOW_S / 2 + 4))
  info "measuring for ${wait_s}s (agents sample every second, Prometheus scrapes every second)"
  sleep "$wait_s"
  prom_by_node "avg_over_time(weft_node_cpu_busy_ratio[$((wait_s - 2))s])" >"$STATE/load-background.json" ||
    fail "Prometheus query for weft_node_cpu_busy_ratio failed"
  local low=0 high=0 nlow=0 nhigh=0 missing=0 v
  for h in $(all_hosts); do
    v=$(jq -r --arg h "$h" '.[$h] // "missing"' "$STATE/load-background.json")
    [ "$v" = missing ] && { missing=$((missing + 1)); continue; }
    case "${BACKGROUND[$h]}" in
      0.03) low=$(awk -v a="$low" -v b="$v" 'BEGIN { print a + b }'); nlow=$((nlow + 1)) ;;
      0.13) high=$(awk -v a="$high" -v b="$v" 'BEGIN { print a + b }'); nhigh=$((nhigh + 1)) ;;
    esac
  done
  ((missing == 0)) || fail "$missing nodes have no weft_node_cpu_busy_ratio in Prometheus"
  local mean_low mean_high
  mean_low=$(awk -v s="$low" -v n="$nlow" 'BEGIN { printf "%.3f", s / n }')
  mean_high=$(awk -v s="$high" -v n="$nhigh" 'BEGIN { printf "%.3f", s / n }')
  info "measured: nodes burning 3 % average $(awk -v v="$mean_low" 'BEGIN { printf "%.1f", 100 * v }') %," \
    "nodes burning 13 % average $(awk -v v="$mean_high" 'BEGIN { printf "%.1f", 100 * v }') %"
  if ((AGENT_HAS_CGROUP_LOAD)); then
    awk -v l="$mean_low" -v h="$mean_high" 'BEGIN { exit !(h > l + 0.04 && l > 0.005) }' ||
      fail "the agents do not see their own nodes' load (3 % nodes read $mean_low, 13 % nodes read $mean_high)"
    step_done "each agent reports its own node's cgroup: the 13 % nodes read higher than the 3 % nodes"
  else
    note "this weft-agent has no --load-cgroup: every node reports the whole machine's load (procfs)"
    step_done "agents report load (whole machine: per-node cgroup load needs weft-agent --load-cgroup)"
  fi
}
