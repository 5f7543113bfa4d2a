# Step 7: the master subnet manager of fabric A is killed; the standby takes over and
# every node keeps its fabric, leaf and spine labels (the fabric id is the subnet's,
# not the SM's).

sm_guids_seen_on_a() {
  prom_query "count by (sm_guid) (weft_ib_sm_info{node=~\"a-.*\"})" | jq -r '.data.result[] | "\(.metric.sm_guid) \(.value[1])"'
}

all_a_agents_see() {
  local guid=$1 n
  n=$(prom_query "count(weft_ib_sm_info{node=~\"a-.*\",sm_guid=\"$guid\"})" | jq -r '.data.result[0].value[1] // 0')
  [ "$n" = "$A_HOSTS" ]
}

step_failover() {
  step 7 "the master SM of fabric a dies; the standby takes over; labels stay"
  local old new pid t0
  old=$(host_port_guid a "$SM_A_MASTER")
  new=$(host_port_guid a "$SM_A_STANDBY")
  all_a_agents_see "$old" || note "not every fabric-a agent reports SM $old yet (see weft_ib_sm_info)"
  kc get nodes -o json >"$STATE/nodes-before-failover.json"
  pid=$(pid_of opensm-a-master) || fail "no master OpenSM process"
  t0=$(date +%s.%N)
  kill -KILL "$pid"
  info "killed the master OpenSM on $SM_A_MASTER (pid $pid, guid $old)"
  wait_until 90 "the standby OpenSM on $SM_A_STANDBY to become master" sm_in_state a "$SM_A_STANDBY" "Entering MASTER state"
  info "standby on $SM_A_STANDBY entered MASTER after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  local secs seen=0 i
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  for ((i = 0; i < 40; i++)); do
    if all_a_agents_see "$new"; then seen=1; break; fi
    sleep 0.5
  done
  if ((seen)); then
    info "all $A_HOSTS agents of fabric a report SM $new $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after the kill"
  else
    note "the agents have not re-probed the new SM within 20 s; last probe error of a-h0001:"
    note "  $(grep 'ib probe failed' "$RUN/logs/agent-a-h0001.log" | tail -1 | cut -c1-200)"
  fi
  kc get nodes -o json >"$STATE/nodes-failover.json"
  local unchanged=true
  "$REPORT" compare-labels --before "$STATE/nodes-before-failover.json" --after "$STATE/nodes-failover.json" ||
    unchanged=false
  jq -n --arg f a --arg o "$old" --arg n "$new" --argjson s "$secs" --argjson u "$unchanged" \
    '{fabric: $f, old_master: $o, new_master: $n, seconds: $s, labels_unchanged: $u}' >"$STATE/failover.json"
  [ "$unchanged" = true ] || fail "node labels changed across the SM failover"
  SM_JSON=$(jq -c '(.[] | select(.fabric == "a" and .role == "master")).role = "master, killed" |
    (.[] | select(.fabric == "a" and .role == "standby")).role = "standby, now master"' <<<"$SM_JSON")
  step_done "the standby SM took over in ${secs} s; all $(jq '.items | length' "$STATE/nodes-failover.json") nodes' fabric/leaf/spine labels unchanged"
}
