# Step 5: one node is made hot by its own pods (its plain pods start using more CPU than
# they asked for); weft-descheduler run --once reads the agents' load from Prometheus,
# evicts what it safely can and says what it kept and why; the demo then re-creates the
# evicted pods as their ReplicaSet would, and weft-scheduler places them again.

write_policy() {
  cat >"$RUN/policy.yaml" <<YAML
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: 5
profiles:
  - name: demo
    pluginConfig:
      - name: DefaultEvictor
        args:
          priorityThreshold: {value: 10000}
          nodeFit: true
          ignorePvcPods: true
      - name: LoadAware
        args:
          thresholds: {cpu: $LOW_THRESHOLD_CPU, memory: 90}
          targetThresholds: {cpu: $TARGET_THRESHOLD_CPU, memory: 95}
          evictableNamespaces: {include: [ml]}
          metrics: {type: Prometheus, address: "$PROM_URL", window: ${LOAD_WINDOW_S}s}
    plugins:
      balance:
        enabled: [LoadAware]
YAML
}

node_avg_load() {
  prom_query "avg_over_time(weft_node_cpu_busy_ratio{node=\"$1\"}[${LOAD_WINDOW_S}s])" |
    jq -r '.data.result[0].value[1] // 0'
}
node_is_hot() { awk -v v="$(node_avg_load "$1")" -v t="$TARGET_THRESHOLD_CPU" 'BEGIN { exit !(100 * v > t + 5) }'; }
node_is_low() { awk -v v="$(node_avg_load "$1")" -v t="$LOW_THRESHOLD_CPU" 'BEGIN { exit !(100 * v < t) }'; }
node_is_not_low() { ! node_is_low "$1"; }

pods_on_node() { jq -r --arg n "$2" '.items[] | select(.spec.nodeName == $n) | .metadata.name' "$STATE/pods-$1.json"; }

# The share of its node that a node's processes burn: its background share plus, for
# each pod, POD_USE of what the pod requests.
planned_load() {
  jq -r --arg n "$1" --argjson use "$POD_USE" --argjson cap "$NODE_CPU_REQUESTABLE" \
    --argjson bg "${BACKGROUND[$1]:-0}" '
    [.items[] | select(.spec.nodeName == $n) | .spec.containers[].resources.requests.cpu // "0" |
     if endswith("m") then (.[:-1] | tonumber) / 1000 else tonumber end] | add // 0 | . * $use / $cap + $bg' \
    "$STATE/pods-placed.json"
}

# Fabric-bound gang pods on a hot node could only move inside their fabric: another
# tenant lifts every low node of that fabric to about 35 %, so the descheduler must keep
# them. Low is judged from what the node's pods burn, not from a window average that
# may still be rising.
busy_rest_of_fabric() {
  local fabric=$1 n count=0 add
  for n in $(fabric_hosts "$fabric"); do
    [[ " ${HOT_NODES[*]} " == *" $n "* ]] && continue
    add=$(awk -v p="$(planned_load "$n")" -v t="$LOW_THRESHOLD_CPU" 'BEGIN { if (100 * p < t) printf "%.3f", 0.35 - p }')
    [ -n "$add" ] || continue
    burn "tenant-$n" "$n" tenant "$add"
    TENANT_NODES+=("$n")
    count=$((count + 1))
  done
  info "another tenant lifts the $count low nodes of fabric $fabric to about 35 % (no low node left there)"
}

make_hot() {
  local hot=$1 plain=() p
  for p in $(pods_on_node placed "$hot"); do [[ "$p" == web-* ]] && plain+=("$p"); done
  if ((${#plain[@]} == 0)); then
    burn "noisy-$hot" "$hot" noisy 0.80
    info "no plain pod on $hot: a noisy process outside Kubernetes makes it hot"
    return
  fi
  local per cores
  per=$(awk -v n="${#plain[@]}" 'BEGIN { v = 0.6 / n; if (v < 0.3) v = 0.3; printf "%.3f", v }')
  cores=$(awk -v f="$per" -v c="$NODE_CPUS" 'BEGIN { printf "%.5f", f * c }')
  for p in "${plain[@]}"; do
    kc annotate pod -n ml "$p" "weft.dev/demo-cpu=$cores" --overwrite >/dev/null || fail "kubectl annotate $p failed"
  done
  info "${plain[*]} on $hot now use $(awk -v f="$per" 'BEGIN { printf "%.0f", 100 * f }') % of the node each" \
    "(weft.dev/demo-cpu=$cores cores; they asked for $PLAIN_POD_CPU of $NODE_CPU_REQUESTABLE)"
}

recreate_evicted() {
  local pod name
  for pod in $(jq -r '.evictions[].pod' "$STATE/plan.json"); do
    name=${pod#*/}
    wait_until 20 "evicted pod $pod to be gone" bash -c "! kubectl --kubeconfig '$RUN/kubeconfig' get pod -n ml '$name' >/dev/null 2>&1"
    kc apply -f "$RUN/manifests/pods/$name.yaml" >/dev/null || fail "re-creating $pod failed"
  done
}

step_rebalance() {
  step 5 "a hot node; weft-descheduler evicts safely from it; weft-scheduler re-places"
  write_policy
  "$REPORT" pick-hot --nodes "$STATE/nodes-placed.json" --pods "$STATE/pods-placed.json" \
    --podgroups "$STATE/podgroups.json" >"$STATE/hot.json" || fail "no node to make hot"
  HOT=$(jq -r .node "$STATE/hot.json")
  mapfile -t HOT_NODES < <(jq -r '.nodes[].node' "$STATE/hot.json")
  local h i fabric busy_fabrics=()
  for ((i = 0; i < ${#HOT_NODES[@]}; i++)); do
    h=${HOT_NODES[i]}
    info "hot node: $h (fabric $(fabric_of_host "$h")) holding $(jq -r ".nodes[$i].pods | join(\", \")" "$STATE/hot.json")"
    info "  = $(jq -r ".nodes[$i].holds | join(\"; \")" "$STATE/hot.json")"
    if jq -e ".nodes[$i].holds | index(\"fabric-bound gang above minMember\")" "$STATE/hot.json" >/dev/null; then
      fabric=$(fabric_of_host "$h")
      [[ " ${busy_fabrics[*]} " == *" $fabric "* ]] || busy_fabrics+=("$fabric")
    fi
  done
  TENANT_NODES=()
  for fabric in "${busy_fabrics[@]}"; do busy_rest_of_fabric "$fabric"; done
  local hot_since=$SECONDS
  for h in "${HOT_NODES[@]}"; do make_hot "$h"; done
  for h in "${HOT_NODES[@]}"; do
    wait_until 90 "$h's ${LOAD_WINDOW_S}s average CPU to pass ${TARGET_THRESHOLD_CPU} %" node_is_hot "$h"
  done
  for h in "${TENANT_NODES[@]}"; do
    wait_until 90 "$h's ${LOAD_WINDOW_S}s average CPU to pass ${LOW_THRESHOLD_CPU} %" node_is_not_low "$h"
  done
  # The "before" figures are a whole window of the new load, not its ramp.
  ((SECONDS - hot_since >= LOAD_WINDOW_S)) || sleep $((LOAD_WINDOW_S - (SECONDS - hot_since)))
  prom_by_node "avg_over_time(weft_node_cpu_busy_ratio[${LOAD_WINDOW_S}s])" >"$STATE/load-before.json" ||
    fail "Prometheus query failed"
  info "$HOT at $(jq -r --arg h "$HOT" '.[$h] * 100 | floor' "$STATE/load-before.json") % over ${LOAD_WINDOW_S}s (Prometheus, from its agent)"

  "$BIN/weft-descheduler" run --policy "$RUN/policy.yaml" --kubeconfig "$RUN/kubeconfig" --once --output json \
    --state-configmap weft-system/weft-descheduler-state --max-metric-age 30s \
    >"$STATE/plan.json" 2>"$RUN/logs/descheduler.log" || fail "weft-descheduler run --once failed: $(tail -3 "$RUN/logs/descheduler.log")"
  # sized_by "usage": the pod's own measured CPU (the agent's per-pod series) chose it,
  # not what it asked for; "requests" where no fresh per-pod reading existed.
  jq -r '.evictions[] | "evicted \(.pod) from \(.from) (to \(.to // "-"), sized by \(.sized_by // "requests"): \(.cpu // 0 | . * 100 | round / 100) cores): \(.reason)"' \
    "$STATE/plan.json" | sed 's/^/           /'
  jq -r --slurpfile pods "$STATE/pods-placed.json" '.skipped[] | .pod as $p |
    ($pods[0].items[] | select((.metadata.namespace + "/" + .metadata.name) == $p) | .spec.nodeName) as $n |
    "kept    \($p) on \($n): \(.reason)"' "$STATE/plan.json" | sed 's/^/           /'
  local from_hot reason
  from_hot=$(jq --arg h "$HOT" '[.evictions[] | select(.from == $h)] | length' "$STATE/plan.json")
  ((from_hot >= 1)) || fail "no eviction from the hot node $HOT"
  # The hot nodes hold a pod of a gang at minMember and a pod of a fabric-bound gang whose
  # fabric has no low node left: the descheduler must have kept both, saying why.
  for reason in gang-min-member topology; do
    jq -e --arg r "$reason" '[.skipped[] | select(.reason == $r)] | length > 0' "$STATE/plan.json" >/dev/null ||
      fail "the descheduler kept no pod for reason '$reason' (see $STATE/plan.json)"
  done

  recreate_evicted
  local total
  total=$(ls "$RUN/manifests/pods" | wc -l)
  wait_until 60 "the re-created pods to be bound and Running" demo_pods_running "$total"
  dump_cluster after
  "$REPORT" check-gangs --nodes "$STATE/nodes-after.json" --pods "$STATE/pods-after.json" \
    --podgroups "$STATE/podgroups.json" || fail "a gang was broken"
  "$REPORT" check-placement --nodes "$STATE/nodes-after.json" --pods "$STATE/pods-after.json" \
    --podgroups "$STATE/podgroups.json" --out "$STATE/placements-after.json" >/dev/null ||
    fail "placement claims no longer hold after the rebalancing"
  local p
  for p in $(jq -r '.evictions[].pod' "$STATE/plan.json"); do
    info "re-placed ${p#*/} on $(jq -r --arg n "${p#*/}" '.items[] | select(.metadata.name == $n) | .spec.nodeName' "$STATE/pods-after.json")"
  done
  local wait_s=$((LOAD_WINDOW_S / 2 + 2))
  sleep "$wait_s"
  prom_by_node "avg_over_time(weft_node_cpu_busy_ratio[${wait_s}s])" >"$STATE/load-after.json"
  local before after
  before=$(jq -r --arg h "$HOT" '.[$h]' "$STATE/load-before.json")
  after=$(jq -r --arg h "$HOT" '.[$h]' "$STATE/load-after.json")
  info "$HOT: $(awk -v v="$before" 'BEGIN { printf "%.0f", 100 * v }') % before, $(awk -v v="$after" 'BEGIN { printf "%.0f", 100 * v }') % after"
  # The simulated nodes share this machine's CPU with everything else on it, so a drop can
  # hide behind contention; the claims checked are the evictions and the re-placement.
  awk -v b="$before" -v a="$after" 'BEGIN { exit !(a < b - 0.05) }' ||
    note "$HOT's measured load did not drop by 5 points (machine CPU contention?)"
  step_done "$from_hot eviction(s) from $HOT; $(jq '.skipped | length' "$STATE/plan.json") pod(s) kept with reasons; no gang broken; every pod Running again"
}
