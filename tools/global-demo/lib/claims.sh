# Steps 3-6: what the demo claims, each read back from the control plane's and the
# members' APIs; step 7 writes summary.json.

condition_of() {   # condition_of JOB FIELD: the Dispatched condition's field, now
  bindings_json | jq -r --arg b "$1-job" --arg f "$2" \
    '.items[] | select(.metadata.name == $b) | .status.conditions[]? | select(.type == "Dispatched") | .[$f]'
}

dispatched_pairs() {   # "job member" of every binding holding a member
  bindings_json | jq -r '.items[] | select(.spec.suspension.scheduling == false and (.spec.clusters | length) > 0)
                          | "\(.spec.resource.name) \(.spec.clusters[0].name)"'
}

gpus_of_job() { echo $((GANG_PODS * POD_GPUS)); }

# check_whole JOB MEMBER: the binding holds one member with all replicas, and there every
# pod of the job is bound to a node of that member; no other member has any of them.
check_whole() {
  local job=$1 member=$2 m
  local b
  b=$(bindings_json | jq -c --arg b "$job-job" '.items[] | select(.metadata.name == $b)')
  [ "$(jq -c '.spec.clusters' <<<"$b")" = "[{\"name\":\"$member\",\"replicas\":$GANG_PODS}]" ] ||
    fail "$job-job: spec.clusters is $(jq -c '.spec.clusters' <<<"$b"), not all $GANG_PODS replicas on $member"
  local pods nodes
  pods=$(member_pods_json "$member")
  nodes=$(kcm "$member" get nodes -o json | jq -c '[.items[].metadata.name]')
  local bound
  bound=$(jq --arg j "$job" --argjson nodes "$nodes" \
    '[.items[] | select(.metadata.labels["volcano.sh/job-name"] == $j and .spec.nodeName and (.spec.nodeName as $n | $nodes | index($n)))] | length' <<<"$pods")
  [ "$bound" = "$GANG_PODS" ] || fail "$job: $bound of $GANG_PODS pods bound to nodes of $member"
  for m in "${MEMBERS[@]}"; do
    [ "$m" = "$member" ] && continue
    local stray
    stray=$(member_pods_json "$m" | jq --arg j "$job" '[.items[] | select(.metadata.labels["volcano.sh/job-name"] == $j)] | length')
    [ "$stray" = 0 ] || fail "$job has $stray pods in $m, though it went to $member"
  done
  jq -r --arg j "$job" '.items[] | select(.metadata.labels["volcano.sh/job-name"] == $j) | .spec.nodeName' <<<"$pods" | sort | tr '\n' ' '
}

# No node of any member holds more GPUs than it has.
check_no_overcommit() {
  local m over
  for m in "${MEMBERS[@]}"; do
    over=$(kcm "$m" get nodes,pods -A -o json | jq -r '
      ([.items[] | select(.kind == "Node") | {(.metadata.name): (.status.allocatable["nvidia.com/gpu"] // "0" | tonumber)}] | add) as $cap
      | [.items[] | select(.kind == "Pod" and .spec.nodeName) | {n: .spec.nodeName, g: ([.spec.containers[].resources.requests["nvidia.com/gpu"] // "0" | tonumber] | add)}]
      | group_by(.n) | map({n: .[0].n, g: (map(.g) | add)}) | map(select(.g > ($cap[.n] // 0))) | map("\(.n) \(.g)") | join(", ")')
    [ -z "$over" ] || fail "member $m: GPUs overcommitted on $over"
  done
}

step_whole_gangs() {
  step 3 "each dispatched gang went whole to one member, whose weft-scheduler binds all its pods"
  propagate_dispatched
  local n
  n=$(wc -l <"$STATE/propagated.txt")
  ((n > 0)) || fail "weft-scheduler global dispatched nothing"
  wait_until 30 "the members' weft-schedulers to bind every dispatched pod" propagated_bound
  local job member nodes
  while read -r job member; do
    nodes=$(check_whole "$job" "$member")
    info "$job -> $member: all $GANG_PODS pods bound there ($nodes)"
  done <"$STATE/propagated.txt"
  check_no_overcommit
  step_done "$n gangs dispatched, each to one member with all $GANG_PODS replicas; every pod bound there by the member's scheduler, none elsewhere, no GPU overcommitted"
}

step_fragmentation() {
  step 4 "a gang that fits nowhere, though west's summed free GPUs suffice, stays suspended and says why"
  local waiting
  waiting=$(bindings_json | jq -r '.items[] | select(.spec.suspension.scheduling == true) | .spec.resource.name' | head -1)
  [ -n "$waiting" ] || fail "no binding is waiting: the scenario should leave gangs that fit nowhere"
  local b
  b=$(bindings_json | jq -c --arg b "$waiting-job" '.items[] | select(.metadata.name == $b)')
  [ "$(jq -c '.spec.clusters // []' <<<"$b")" = "[]" ] || fail "$waiting-job is suspended but holds $(jq -c .spec.clusters <<<"$b")"
  local reason message
  reason=$(condition_of "$waiting" reason)
  message=$(condition_of "$waiting" message)
  [ "$reason" = NoClusterFit ] || fail "$waiting-job waits with reason '$reason', not NoClusterFit: $message"
  [[ "$message" == fragmentation:* ]] || fail "$waiting-job's reason does not say fragmentation: $message"
  [[ "$message" == *"west: "* ]] || fail "$waiting-job's reason does not name west: $message"
  # What a dispatcher working on sums would see: Karmada's resourceSummary of west.
  local summary free need
  summary=$(kc get clusters.cluster.karmada.io west -o json | jq -c '.status.resourceSummary')
  free=$(jq -r '(.allocatable["nvidia.com/gpu"] | tonumber) - (.allocated["nvidia.com/gpu"] | tonumber)' <<<"$summary")
  need=$(gpus_of_job)
  ((free >= need)) || fail "west's resourceSummary has $free GPUs free, fewer than the $need the gang asks: no fragmentation to show"
  # ...and the truth on west's nodes: no node has a whole pod's GPUs free.
  local best
  best=$(kcm west get nodes,pods -A -o json | jq '
      [.items[] | select(.kind == "Pod" and .spec.nodeName) | {n: .spec.nodeName, g: ([.spec.containers[].resources.requests["nvidia.com/gpu"] // "0" | tonumber] | add)}] as $used
      | [.items[] | select(.kind == "Node" and ((.spec.taints // []) | length == 0))
         | .metadata.name as $n | (.status.allocatable["nvidia.com/gpu"] | tonumber) - ([$used[] | select(.n == $n) | .g] | add // 0)] | max')
  ((best < POD_GPUS)) || fail "a west node has $best GPUs free: a $POD_GPUS-GPU pod would fit"
  local events
  events=$(kc get events -n ml -o json | jq --arg b "$waiting-job" '[.items[] | select(.involvedObject.name == $b and .reason == "NoClusterFit")] | length')
  ((events >= 1)) || fail "no NoClusterFit Event for $waiting-job"
  info "$waiting-job: suspended, NoClusterFit: ${message:0:220}..."
  info "Karmada's resourceSummary of west: $free GPUs free >= $need asked; the most free on one west node: $best < $POD_GPUS"
  local others
  others=$(bindings_json | jq -r '.items[] | select(.spec.suspension.scheduling == true) | .metadata.name' | tr '\n' ' ')
  step_done "$waiting-job (and every waiting binding: $others) stays suspended with reason fragmentation, an Event says so; summed capacity ($free GPUs on west) would have dispatched it to a member where it cannot start"
}

# queue_gpus QUEUE: GPUs of the bindings of QUEUE that hold a member.
queue_gpus() {
  local q=$1 job member total=0
  while read -r job member; do
    [ "${JOB_QUEUE[$job]}" = "$q" ] && total=$((total + $(gpus_of_job)))
  done < <(dispatched_pairs)
  echo "$total"
}

step_shares() {
  step 5 "queue shares follow the weights ($PROD_WEIGHT:$RESEARCH_WEIGHT) while both queues ask for more than there is"
  local prod research prod_waiting research_waiting
  prod=$(queue_gpus prod)
  research=$(queue_gpus research)
  prod_waiting=$(bindings_json | jq '[.items[] | select(.spec.suspension.scheduling == true and (.spec.resource.name | startswith("prod-")))] | length')
  research_waiting=$(bindings_json | jq '[.items[] | select(.spec.suspension.scheduling == true and (.spec.resource.name | startswith("research-")))] | length')
  ((prod_waiting > 0 && research_waiting > 0)) || fail "both queues should still have jobs waiting (prod $prod_waiting, research $research_waiting)"
  ((research > 0)) || fail "research holds nothing"
  ((prod * RESEARCH_WEIGHT == research * PROD_WEIGHT)) ||
    fail "GPUs held: prod $prod, research $research: not $PROD_WEIGHT:$RESEARCH_WEIGHT"
  # The baseline: first come, first served releases the jobs in submission order (alternating).
  local n=$(((prod + research) / $(gpus_of_job))) i fifo_prod=0 fifo_research=0
  for ((i = 0; i < n; i++)); do
    if [ "${JOB_QUEUE[${JOBS[$i]}]}" = prod ]; then fifo_prod=$((fifo_prod + $(gpus_of_job))); else fifo_research=$((fifo_research + $(gpus_of_job))); fi
  done
  info "GPUs held: prod $prod, research $research ($PROD_WEIGHT:$RESEARCH_WEIGHT); waiting: prod $prod_waiting jobs, research $research_waiting"
  info "first come, first served (the submission order) would have given prod $fifo_prod, research $fifo_research"
  step_done "prod holds $prod GPUs and research $research, exactly their weights $PROD_WEIGHT:$RESEARCH_WEIGHT (first come, first served: $fifo_prod:$fifo_research)"
}

# Jobs on south now that were not there when weft first decided (step 2).
new_on_south() {
  local job
  dispatched_pairs | awk '$2 == "south" { print $1 }' | while read -r job; do
    jq -e --arg b "$job-job" 'any(.items[]; .metadata.name == $b and .spec.clusters[0].name? == "south")' \
      "$STATE/bindings-decided.json" >/dev/null || echo "$job"
  done
}
some_new_on_south() { [ -n "$(new_on_south)" ]; }
names_south_not_ready() { [[ "$(condition_of "$1" message)" == *"south: NotReady"* ]]; }

step_not_ready() {
  step 6 "a member set NotReady gets nothing new, even with room; once Ready it takes the next gang"
  # A prod job on south finishes while south is NotReady: south has room no one may use.
  local victim
  victim=$(dispatched_pairs | awk '$2 == "south" { print $1; exit }')
  [ -n "$victim" ] || fail "no job runs on south to finish"
  local south_pods_before
  south_pods_before=$(member_pods_json south | jq -c '[.items[].metadata.name] | sort')
  set_member_ready south False
  local waiting
  waiting=$(bindings_json | jq -r '.items[] | select(.spec.suspension.scheduling == true) | .spec.resource.name' | head -1)
  wait_until 30 "$waiting-job to name south NotReady" names_south_not_ready "$waiting"
  finish_job "$victim" south
  south_pods_before=$(jq -c --arg j "$victim" 'map(select(startswith($j + "-") | not))' <<<"$south_pods_before")
  set_member_ready south False   # the resourceSummary now shows the room
  info "south NotReady (ClusterNotReachable); $victim finished there: $(kc get clusters.cluster.karmada.io south -o json |
    jq -r '.status.resourceSummary | "\((.allocatable["nvidia.com/gpu"] | tonumber) - (.allocated["nvidia.com/gpu"] | tonumber)) GPUs free"')"
  wait_global_cycles 3
  local onto_south
  onto_south=$(new_on_south | tr '\n' ' ')
  [ -z "$onto_south" ] || fail "dispatched to NotReady south: $onto_south"
  local after
  after=$(member_pods_json south | jq -c '[.items[].metadata.name] | sort')
  [ "$after" = "$south_pods_before" ] || fail "south's pods changed while NotReady: $south_pods_before -> $after"
  local msg
  msg=$(condition_of "$waiting" message)
  [[ "$msg" == *"south: NotReady"* ]] || fail "$waiting-job's reason does not name south NotReady: $msg"
  info "after 3 cycles: nothing new on south; $waiting-job waits: ...$(grep -o 'south: NotReady[^;]*' <<<"$msg")"
  set_member_ready south True
  wait_until 30 "a waiting gang to go to south once it is Ready" some_new_on_south
  propagate_dispatched
  wait_until 30 "south's weft-scheduler to bind the new gang" propagated_bound
  local newcomer
  newcomer=$(new_on_south | head -1)
  check_whole "$newcomer" south >/dev/null
  check_no_overcommit
  step_done "while south was NotReady (with $(gpus_of_job) GPUs free after $victim finished) no binding went there and the waiting ones named it; Ready again, $newcomer went there whole and was bound"
}

step_report() {
  CURRENT_STEP="summary"
  printf '\n%s[%s] summary%s\n' "$C_BOLD" "$(elapsed)" "$C_OFF"
  local total
  total=$(awk -v a="$DEMO_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  bindings_json | jq --slurpfile steps "$STATE/steps.json" --argjson total "$total" '
    {duration_s: $total, steps: $steps[0],
     bindings: [.items[] | {name: .metadata.name, queue: null, suspended: .spec.suspension.scheduling,
                            clusters: (.spec.clusters // []),
                            reason: ((.status.conditions // [])[] | select(.type == "Dispatched") | .reason)}]}' >"$OUT/summary.json.tmp"
  local q=()
  local job
  for job in "${JOBS[@]}"; do q+=("$job-job=${JOB_QUEUE[$job]}"); done
  jq --arg q "${q[*]}" '($q | split(" ") | map(split("=") | {(.[0]): .[1]}) | add) as $queues
                        | .bindings |= map(.queue = $queues[.name])' "$OUT/summary.json.tmp" >"$OUT/summary.json"
  rm -f "$OUT/summary.json.tmp"
  jq -r '.bindings[] | [.name, .queue, (if .suspended then "suspended" else "on " + (.clusters | map(.name) | join(",")) end), .reason] | @tsv' \
    "$OUT/summary.json" | column -t -s$'\t' | sed 's/^/           /'
  info "wrote $OUT/summary.json; logs in $RUN/logs"
}
