# Step 4: Volcano Queues and PodGroups submitted with kubectl — gangs that must share
# one IB fabric, a hard-tier gang that must sit under one leaf, plain pods — bound by
# weft-scheduler, started by weft-node-runtime as processes in their node's cgroup. Then
# two LLM-shaped jobs in namespace llm: Kubernetes' own gang API (a scheduling.k8s.io
# PodGroup with a topology key) and Volcano sub-groups (tensor-parallel pairs each in a
# leaf, the job in a spine); both checked from the API, then deleted.

# A stable made-up UID for a job's owner object (no controller runs in the demo).
uid_for() {
  local h
  h=$(printf '%s' "$1" | md5sum | cut -c1-32)
  echo "${h:0:8}-${h:8:4}-${h:12:4}-${h:16:4}-${h:20:12}"
}

# pod_manifest NAME JOB GROUP CPU MEMORY OWNER-KIND OWNER-API [PRIORITY-CLASS]: one pod,
# written to manifests/pods/NAME.yaml so a "controller" can re-create it after an eviction.
pod_manifest() {
  local name=$1 job=$2 group=$3 cpu=$4 mem=$5 kind=$6 api=$7 priority_class=${8:-}
  local group_annotation=""
  [ -n "$group" ] && group_annotation="scheduling.k8s.io/group-name: $group"
  [ -n "$priority_class" ] && priority_class="priorityClassName: $priority_class"
  cat >"$RUN/manifests/pods/$name.yaml" <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $name
  namespace: ml
  labels: {weft.dev/demo-job: $job, app: $job}
  annotations: {$group_annotation}
  ownerReferences:
    - {apiVersion: $api, kind: $kind, name: $job, uid: $(uid_for "$job"), controller: true}
spec:
  schedulerName: weft
  $priority_class
  restartPolicy: Never
  containers:
    - name: main
      image: weft.dev/demo-burner
      resources:
        requests: {cpu: "$cpu", memory: $mem}
YAML
}

# gang NAME QUEUE PODS MIN-MEMBER EXTRA-SPEC-YAML ANNOTATIONS-YAML
gang() {
  local name=$1 queue=$2 pods=$3 min=$4 spec_extra=$5 annotations=$6 i
  cat >>"$RUN/manifests/podgroups.yaml" <<YAML
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: $name
  namespace: ml
  annotations: {$annotations}
spec:
  minMember: $min
  queue: $queue
$spec_extra
YAML
  for ((i = 0; i < pods; i++)); do
    pod_manifest "$name-$i" "$name" "$name" "$GANG_POD_CPU" "$GANG_POD_MEMORY" Job batch.volcano.sh/v1alpha1
  done
}

write_job_manifests() {
  mkdir -p "$RUN/manifests/pods"
  cat >"$RUN/manifests/queues.yaml" <<YAML
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: research}
spec: {weight: 3, reclaimable: true}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1, reclaimable: true}
YAML
  : >"$RUN/manifests/podgroups.yaml"
  gang train-a research 4 4 "" "weft.dev/ib-cluster: same"
  gang train-b research 6 4 "" "weft.dev/ib-cluster: same"
  gang allreduce research "$ALLREDUCE_PODS" "$ALLREDUCE_PODS" \
    "  networkTopology: {mode: hard, highestTierAllowed: 1}" ""
  local i
  for ((i = 0; i < PLAIN_PODS; i++)); do
    pod_manifest "web-$i" web "" "$PLAIN_POD_CPU" "$PLAIN_POD_MEMORY" ReplicaSet apps/v1
  done
  cat >"$RUN/scheduler.yaml" <<YAML
actions: "enqueue, allocate, backfill"
tiers:
  - plugins:
      - name: priority
      - name: gang
      - name: conformance
  - plugins:
      - name: drf
      - name: predicates
      - name: proportion
      - name: network-topology-aware
      - name: usage
        arguments:
          usage.weight: 5
          thresholds: {cpu: $((TARGET_THRESHOLD_CPU)), mem: 95}
      - name: binpack
YAML
}

start_node_runtime() {
  local args=() h
  for h in $(all_hosts); do args+=(--node "$h"); done
  local scale
  scale=$(awk -v c="$NODE_CPUS" -v n="$NODE_CPU_REQUESTABLE" -v u="$POD_USE" 'BEGIN { printf "%.6f", u * c / n }')
  start_proc node-runtime "$BIN/weft-node-runtime" run --kubeconfig "$RUN/kubeconfig" --cgroup-root "$CGROOT" \
    --cpu-scale "$scale" "${args[@]}"
}

start_scheduler() {
  start_proc scheduler "$BIN/weft-scheduler" run --kubeconfig "$RUN/kubeconfig" --config "$RUN/scheduler.yaml" \
    --scheduler-name weft --period 1s
}

demo_pods_running() {
  local want=$1 n
  n=$(kc get pods -n ml -o json | jq '[.items[] | select(.status.phase == "Running" and .spec.nodeName)] | length')
  [ "$n" = "$want" ]
}

print_placements() {
  jq -r 'to_entries[] | "\(.key)\t\(.value.kind)\tmin \(.value.minMember)\t\(.value.pods | length) pods\tfabric \(.value.fabrics | join(","))\tleaves \(.value.leaves | length)\tnodes \([.value.pods[].node] | join(" "))"' \
    "$1" | column -t -s$'\t' | sed 's/^/           /'
}

step_jobs() {
  step 4 "Queues, gangs and plain pods submitted; weft-scheduler binds; weft-node-runtime runs them"
  write_job_manifests
  start_node_runtime
  start_scheduler
  kc apply -f "$RUN/manifests/queues.yaml" >/dev/null || fail "kubectl apply of the Queues failed"
  kc apply -f "$RUN/manifests/podgroups.yaml" >/dev/null || fail "kubectl apply of the PodGroups failed"
  kc apply -f "$RUN/manifests/pods/" >/dev/null || fail "kubectl apply of the pods failed"
  local total
  total=$(ls "$RUN/manifests/pods" | wc -l)
  info "submitted: train-a (4 pods, min 4, ib-cluster: same), train-b (6, min 4, ib-cluster: same),"
  info "           allreduce ($ALLREDUCE_PODS, min $ALLREDUCE_PODS, hard tier 1 = one leaf), web ($PLAIN_PODS plain pods)"
  info "           each pod burns $(awk -v u="$POD_USE" 'BEGIN { print 100 * u }') % of the CPU it requests, in its node's cgroup"
  wait_until 90 "all $total pods to be bound and Running" demo_pods_running "$total"
  dump_cluster placed
  "$REPORT" check-placement --nodes "$STATE/nodes-placed.json" --pods "$STATE/pods-placed.json" \
    --podgroups "$STATE/podgroups.json" --out "$STATE/placements.json" || fail "placement claims do not hold (see problems above)"
  print_placements "$STATE/placements.json"
  local procs
  procs=$(find "$CGROOT" -path '*/pod-*' -name cgroup.procs -exec cat {} + | wc -l)
  ((procs >= total)) || fail "only $procs pod processes run in the nodes' cgroups for $total Running pods"
  step_llm_jobs
  step_pod_contract_jobs
  step_done "$total pods bound; each ib-cluster gang inside one fabric; allreduce inside one leaf; $procs pod processes burning in their nodes' cgroups; the llm jobs (Kubernetes PodGroup, Volcano sub-groups) each in their domains; anti-affinity, spread and a local volume honoured"
}

LLM_PODS=${LLM_PODS:-4} LLM_POD_CPU=${LLM_POD_CPU:-1} LLM_POD_MEMORY=${LLM_POD_MEMORY:-2Gi}

# small_pod NAMESPACE NAME EXTRA-SPEC-YAML LABELS ANNOTATIONS CPU MEMORY: a pod weft places.
small_pod() {
  cat <<YAML
---
apiVersion: v1
kind: Pod
metadata:
  name: $2
  namespace: $1
  labels: {$4}
  annotations: {$5}
spec:
  schedulerName: weft
  restartPolicy: Never
$3
  containers:
    - name: main
      image: weft.dev/demo-burner
      resources:
        requests: {cpu: "$6", memory: $7}
YAML
}

# llm_pod NAME EXTRA-SPEC-YAML LABELS ANNOTATIONS: a small pod of namespace llm.
llm_pod() { small_pod llm "$1" "$2" "$3" "$4" "$LLM_POD_CPU" "$LLM_POD_MEMORY"; }

write_llm_manifests() {
  local f="$RUN/manifests/llm.yaml" i
  {
    cat <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: llm}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: ranks, namespace: llm}
spec:
  schedulingPolicy: {gang: {minCount: $LLM_PODS}}
  schedulingConstraints: {topology: [{key: weft.dev/ib-leaf}]}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: tp, namespace: llm}
spec:
  minMember: $LLM_PODS
  queue: default
  networkTopology: {mode: hard, highestTierAllowed: 2}
  subGroupPolicy:
    - name: tensor-parallel
      subGroupSize: 2
      minSubGroups: $((LLM_PODS / 2))
      matchLabelKeys: [volcano.sh/partition-id]
      networkTopology: {mode: hard, highestTierAllowed: 1}
YAML
    for ((i = 0; i < LLM_PODS; i++)); do
      llm_pod "ranks-$i" "  schedulingGroup: {podGroupName: ranks}" "batch.kubernetes.io/job-completion-index: '$i'" ""
      llm_pod "tp-$i" "" "volcano.sh/partition-id: '$((i / 2))'" "scheduling.k8s.io/group-name: tp"
    done
  } >"$f"
}

llm_pods_bound() {
  local n
  n=$(kc get pods -n llm -o json | jq '[.items[] | select(.spec.nodeName)] | length')
  [ "$n" = "$((2 * LLM_PODS))" ]
}

llm_jobs_gone() {
  [ "$(kc get pods,podgroups.scheduling.volcano.sh,podgroups.scheduling.k8s.io -n llm -o json | jq '.items | length')" = 0 ]
}

# After step 4's check: the two LLM-shaped jobs, checked from the API, then removed so the
# later steps see the cluster they were written for.
step_llm_jobs() {
  write_llm_manifests
  kc apply -f "$RUN/manifests/llm.yaml" >/dev/null || fail "kubectl apply of the llm jobs failed"
  info "submitted: ranks (scheduling.k8s.io/v1beta1 PodGroup, gang minCount $LLM_PODS, topology key weft.dev/ib-leaf),"
  info "           tp (Volcano PodGroup: pairs by volcano.sh/partition-id each in one leaf, the job in one spine)"
  wait_until 60 "the llm jobs' $((2 * LLM_PODS)) pods to be bound" llm_pods_bound
  kc get nodes -o json >"$STATE/nodes-llm.json"
  kc get pods -n llm -o json >"$STATE/pods-llm.json"
  kc get podgroups.scheduling.volcano.sh -n llm -o json >"$STATE/podgroups-volcano-llm.json"
  kc get podgroups.scheduling.k8s.io -n llm -o json >"$STATE/podgroups-native-llm.json"
  "$REPORT" check-groups --nodes "$STATE/nodes-llm.json" --pods "$STATE/pods-llm.json" \
    --podgroups "$STATE/podgroups-volcano-llm.json" --native-podgroups "$STATE/podgroups-native-llm.json" \
    --out "$STATE/llm-groups.json" || fail "the llm jobs' placement claims do not hold (see problems above)"
  jq -r '.native | to_entries[] | "\(.key): \(.value.key) \(.value.domains | join(",")), \(.value.condition.type) \(.value.condition.status)"' \
    "$STATE/llm-groups.json" | sed 's/^/           /'
  jq -r '.subGroups | to_entries[] | .key as $g | .value | "\($g): spine \(.job.domains | join(","))",
    (del(.job) | to_entries[] | .key as $p | .value | to_entries[] |
      "\($g) \($p) \(.key): \(.value.pods | keys | join(" ")) in leaf \(.value.domains | join(","))")' \
    "$STATE/llm-groups.json" | sed 's/^/           /'
  kc delete pods,podgroups.scheduling.volcano.sh,podgroups.scheduling.k8s.io -n llm --all --wait=false >/dev/null ||
    fail "kubectl delete of the llm jobs failed"
  wait_until 60 "the llm jobs to be gone" llm_jobs_gone
  info "ranks bound in one leaf and Scheduled; each tensor-parallel pair of tp in one leaf (checked from the API)"
}
