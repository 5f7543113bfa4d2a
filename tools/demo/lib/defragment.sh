# Step 6: a hard-tier gang waits on a fragmented fabric: every leaf has some room for it,
# none room for all of it, the rest held by lower-priority pods that could run elsewhere.
# weft-descheduler's GangDefragment (a v1alpha2 policy) picks the cheapest victims,
# writes the room's reservation on the gang's PodGroup and evicts them through the
# Eviction API; the demo re-creates them as their ReplicaSet would; weft-scheduler keeps
# them out of the reserved room and binds the whole gang inside it.

write_defragment_policy() {
  cat >"$RUN/policy-defragment.yaml" <<YAML
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: 5
profiles:
  - name: defragment
    pluginConfig:
      - name: DefaultEvictor
        args:
          priorityThreshold: {value: 10000}
          nodeFit: true
      - name: GangDefragment
        args:
          evictableNamespaces: {include: [ml]}
          reservationTTL: 5m
          maxEvictionsPerGang: 8
    plugins:
      balance:
        enabled: [GangDefragment]
YAML
}

write_defragment_manifests() {
  cat >"$RUN/manifests/defragment-gang.yaml" <<YAML
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: demo-urgent}
value: 1000
description: the defragment step's gang, above every other demo pod (priority 0)
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: $DEFRAG_GANG, namespace: ml}
spec:
  minMember: $DEFRAG_PODS
  queue: research
  priorityClassName: demo-urgent
  networkTopology: {mode: hard, highestTierAllowed: 1}
YAML
  local i
  mkdir -p "$RUN/manifests/defragment-pods"
  for ((i = 0; i < DEFRAG_PODS; i++)); do
    pod_manifest "$DEFRAG_GANG-$i" "$DEFRAG_GANG" "$DEFRAG_GANG" "$GANG_POD_CPU" "$GANG_POD_MEMORY" \
      Job batch.volcano.sh/v1alpha1 demo-urgent
    cp "$RUN/manifests/pods/$DEFRAG_GANG-$i.yaml" "$RUN/manifests/defragment-pods/"
  done
}

# Fillers: plain ReplicaSet pods (priority 0), bound by the demo where they fragment the
# leaves (spec.nodeName, as an earlier scheduler would have left them). Their manifests in
# manifests/pods carry no node, so a re-created filler goes through weft-scheduler.
place_fillers() {
  "$REPORT" plan-fragment --nodes "$STATE/nodes-defrag-start.json" --pods "$STATE/pods-defrag-start.json" \
    --gang-cpu "$GANG_POD_CPU" --gang-memory "$GANG_POD_MEMORY" --filler-cpu "$FILLER_POD_CPU" \
    --filler-memory "$FILLER_POD_MEMORY" --max-slots "$DEFRAG_SLOTS_LEFT" >"$STATE/fragment-plan.json" ||
    fail "cannot fragment the leaves with $FILLER_POD_CPU-core fillers"
  local node count i n=0 bound="$RUN/manifests/fillers-bound"
  mkdir -p "$bound"
  while IFS=$'\t' read -r node count; do
    for ((i = 0; i < count; i++)); do
      pod_manifest "batch-$n" batch "" "$FILLER_POD_CPU" "$FILLER_POD_MEMORY" ReplicaSet apps/v1
      sed "s/^spec:\$/spec:\n  nodeName: $node/" "$RUN/manifests/pods/batch-$n.yaml" >"$bound/batch-$n.yaml"
      n=$((n + 1))
    done
  done < <(jq -r '.fillers | to_entries[] | "\(.key)\t\(.value)"' "$STATE/fragment-plan.json")
  if ((n == 0)); then
    note "no filler needed: the pods already there fragment every leaf"
    return
  fi
  kc apply -f "$bound/" >/dev/null || fail "kubectl apply of the fillers failed"
  info "bound $n filler pods ($FILLER_POD_CPU cores, $FILLER_POD_MEMORY, priority 0):" \
    "$(jq -r '.fillers | to_entries | map("\(.value) on \(.key)") | join(", ")' "$STATE/fragment-plan.json")"
}

print_leaf_room() {
  jq -r --argjson want "$DEFRAG_PODS" '.[] | "leaf \(.leaf) (fabric \(.fabric)): room for \(.slots) of the \($want) gang pods, \(.free_cpu) cores free: \([.nodes[] | "\(.node) \(.slots)"] | join(", "))"' \
    "$1" | sed 's/^/           /'
}

gang_bound_count() {
  kc get pods -n ml -l "weft.dev/demo-job=$DEFRAG_GANG" -o json | jq '[.items[] | select(.spec.nodeName)] | length'
}

step_defragment() {
  step 6 "a hard-tier gang on a fragmented fabric; GangDefragment frees one leaf; the gang binds there"
  # Step 5's heat goes away (its hot pods calm down, the processes outside Kubernetes
  # stop): this step is about room, and weft-scheduler's usage plugin skips hot nodes.
  local p
  for p in $(kc get pods -n ml -o json | jq -r '.items[] | select(.metadata.annotations["weft.dev/demo-cpu"]) | .metadata.name'); do
    kc annotate pod -n ml "$p" weft.dev/demo-cpu- >/dev/null || fail "kubectl annotate $p failed"
  done
  stop_matching 'burn-noisy-*'
  stop_matching 'burn-tenant-*'
  dump_cluster defrag-start
  place_fillers
  local total
  total=$(ls "$RUN/manifests/pods" | wc -l)
  wait_until 60 "the fillers to be Running" demo_pods_running "$total"

  write_defragment_manifests
  kc apply -f "$RUN/manifests/defragment-gang.yaml" >/dev/null || fail "kubectl apply of the PriorityClass and PodGroup failed"
  kc apply -f "$RUN/manifests/defragment-pods/" >/dev/null || fail "kubectl apply of the gang's pods failed"
  info "submitted $DEFRAG_GANG: $DEFRAG_PODS pods of $GANG_POD_CPU cores/$GANG_POD_MEMORY, min $DEFRAG_PODS," \
    "networkTopology hard, highestTierAllowed 1 (one leaf), PriorityClass demo-urgent (1000)"
  # Several scheduling cycles (period 1 s): the gang must still wait, wholly unbound.
  sleep 5
  dump_cluster fragmented
  "$REPORT" check-fragmented --nodes "$STATE/nodes-fragmented.json" --pods "$STATE/pods-fragmented.json" \
    --gang-cpu "$GANG_POD_CPU" --gang-memory "$GANG_POD_MEMORY" --gang-pods "$DEFRAG_PODS" \
    --out "$STATE/leaf-room-before.json" || fail "the leaves are not fragmented for $DEFRAG_GANG (see problems above)"
  print_leaf_room "$STATE/leaf-room-before.json"
  local bound
  bound=$(gang_bound_count)
  [ "$bound" = 0 ] || fail "$bound pods of $DEFRAG_GANG were bound on the fragmented fabric"
  info "$DEFRAG_GANG waits after 5 scheduling cycles: 0 of $DEFRAG_PODS pods bound"

  write_defragment_policy
  "$BIN/weft-descheduler" run --policy "$RUN/policy-defragment.yaml" --kubeconfig "$RUN/kubeconfig" --once \
    --output json --state-configmap weft-system/weft-descheduler-state \
    >"$STATE/plan-defragment.json" 2>"$RUN/logs/descheduler-defragment.log" ||
    fail "weft-descheduler run --once (GangDefragment) failed: $(tail -3 "$RUN/logs/descheduler-defragment.log")"
  kc get podgroups.scheduling.volcano.sh -n ml -o json >"$STATE/podgroups-after-plan.json" ||
    fail "kubectl get podgroups failed"
  local reservation
  reservation=$(jq -r --arg g "$DEFRAG_GANG" '.items[] | select(.metadata.name == $g) |
    .metadata.annotations["weft.dev/reserved-room"] // empty' "$STATE/podgroups-after-plan.json")
  [ -n "$reservation" ] || fail "weft-descheduler wrote no weft.dev/reserved-room on PodGroup $DEFRAG_GANG" \
    "($(grep -i 'defragment' "$RUN/logs/descheduler-defragment.log" | tail -2 | cut -c1-300))"
  info "PodGroup $DEFRAG_GANG: weft.dev/reserved-room=$reservation"
  jq -r --slurpfile pods "$STATE/pods-fragmented.json" '.evictions[] | .pod as $k |
    ($pods[0].items[] | select((.metadata.namespace + "/" + .metadata.name) == $k)) as $p |
    "evicted \(.pod) from \(.from) (priority \($p.spec.priority // 0), \($p.spec.containers[0].resources.requests.cpu) cores requested; planned to \(.to // "-")): \(.reason)"' \
    "$STATE/plan-defragment.json" | sed 's/^/           /'

  recreate_evicted "$STATE/plan-defragment.json"
  total=$(ls "$RUN/manifests/pods" | wc -l)
  wait_until 60 "$DEFRAG_GANG and the re-created victims to be bound and Running" demo_pods_running "$total"
  dump_cluster defragmented
  "$REPORT" check-defragment --nodes "$STATE/nodes-defragmented.json" --pods "$STATE/pods-defragmented.json" \
    --podgroups "$STATE/podgroups.json" --pods-before "$STATE/pods-fragmented.json" --gang "$DEFRAG_GANG" \
    --plan "$STATE/plan-defragment.json" --podgroups-after-plan "$STATE/podgroups-after-plan.json" \
    --api-log "$RUN/logs/api-requests.jsonl" --out "$STATE/defragment.json" ||
    fail "the defragmentation's claims do not hold (see problems above)"
  jq -r '"\(.gang) bound in leaf \(.leaf): \([.gang_pods[] | "\(.pod | sub("^ml/"; "")) on \(.node)"] | join(", "))"' \
    "$STATE/defragment.json" | sed 's/^/           /'
  jq -r '.evictions[] | "victim \(.pod) re-created and Running on \(.to), outside the room (evicted through the Eviction API: \(.eviction_api))"' \
    "$STATE/defragment.json" | sed 's/^/           /'
  local victims leaf
  victims=$(jq '.evictions | length' "$STATE/defragment.json")
  leaf=$(jq -r .leaf "$STATE/defragment.json")
  step_done "$DEFRAG_GANG ($DEFRAG_PODS pods, one leaf) waited on a fabric no leaf of which had room; GangDefragment reserved leaf $leaf on its PodGroup and evicted $victims lower-priority pod(s) through the Eviction API; the gang bound inside the room, every victim Running and none of them in the room before the gang was placed"
}
