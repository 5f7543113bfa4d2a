# Step 2 and Karmada's part: Volcano Jobs on the control plane under a PropagationPolicy
# (placement: the Clusters labelled gpu=h100); the demo plays Karmada's detector, making
# each Job's ResourceBinding from the policy read back from the API, suspended as Volcano
# Global's webhook leaves it. Then weft-scheduler global dispatches them, and the demo
# plays Karmada's execution layer: a dispatched job's Volcano Job, PodGroup and pods
# appear in its member, where that member's weft-scheduler binds them.

vcjob_yaml() {
  local name=$1 queue=$2
  cat <<YAML
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: $name
  namespace: ml
spec:
  schedulerName: weft
  queue: $queue
  minAvailable: $GANG_PODS
  tasks:
    - name: worker
      replicas: $GANG_PODS
      template:
        spec:
          containers: [$(trainer_container)]
YAML
}

trainer_container() {
  printf '{name: trainer, image: "registry.example/trainer:2.4", resources: {requests: {cpu: "%s", memory: %s, nvidia.com/gpu: "%s"}, limits: {nvidia.com/gpu: "%s"}}}' \
    "$POD_CPU" "$POD_MEMORY" "$POD_GPUS" "$POD_GPUS"
}

policy_yaml() {
  cat <<YAML
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: gpu-training, namespace: ml}
spec:
  resourceSelectors: [{apiVersion: batch.volcano.sh/v1alpha1, kind: Job}]
  placement:
    clusterAffinity:
      labelSelector: {matchLabels: {gpu: h100}}
    replicaScheduling: {replicaSchedulingType: Duplicated}
YAML
}

# Karmada's detector: a ResourceBinding per Job the policy selects, with the policy's
# placement and the Job's replicas; suspended (Volcano Global's webhook).
detect_bindings() {
  local policy f="$RUN/manifests/bindings.yaml" job
  policy=$(kc get propagationpolicies.policy.karmada.io gpu-training -n ml -o json) ||
    fail "the PropagationPolicy is not on the control plane"
  : >"$f"
  for job in "${JOBS[@]}"; do
    kc get jobs.batch.volcano.sh "$job" -n ml -o json | jq -c --argjson p "$policy" '
      select(any($p.spec.resourceSelectors[]; .apiVersion == "batch.volcano.sh/v1alpha1" and .kind == "Job"))
      | {apiVersion: "work.karmada.io/v1alpha2", kind: "ResourceBinding",
         metadata: {name: (.metadata.name + "-job"), namespace: .metadata.namespace,
                    labels: {"propagationpolicy.karmada.io/name": $p.metadata.name}},
         spec: {resource: {apiVersion, kind, name: .metadata.name, namespace: .metadata.namespace},
                replicas: ([.spec.tasks[].replicas] | add), placement: $p.spec.placement,
                suspension: {scheduling: true}}}' >>"$f" || fail "Job $job is not on the control plane"
  done
  kc apply -f "$f" >/dev/null || fail "kubectl apply of the ResourceBindings failed"
}

# JOB_QUEUE[job] = queue, in submission order in JOBS.
declare -gA JOB_QUEUE
JOBS=()
write_submission() {
  local f="$RUN/manifests/control-plane.yaml" i name
  {
    namespace_yaml ml
    queues_yaml
    policy_yaml
    # Interleaved submission: prod-train-1, research-exp-1, prod-train-2, ...
    for ((i = 1; i <= PROD_JOBS || i <= RESEARCH_JOBS; i++)); do
      for name in prod-train-$i research-exp-$i; do
        case "$name" in prod-*) ((i <= PROD_JOBS)) || continue; JOB_QUEUE[$name]=prod ;;
                        *) ((i <= RESEARCH_JOBS)) || continue; JOB_QUEUE[$name]=research ;; esac
        JOBS+=("$name")
        vcjob_yaml "$name" "${JOB_QUEUE[$name]}"
      done
    done
  } >"$f"
}

bindings_json() { kc get resourcebindings.work.karmada.io -n ml -o json; }

all_decided() {
  bindings_json | jq -e --argjson n "$1" \
    '[.items[] | select(any(.status.conditions[]?; .type == "Dispatched"))] | length == $n' >/dev/null
}

start_global() {
  local args=(global run --kubeconfig "$RUN/kubeconfig" --period 1 --log-level debug) m
  for m in "${MEMBERS[@]}"; do args+=(--member "$m=$RUN/$m.kubeconfig"); done
  start_proc weft-global "$BIN/weft-scheduler" "${args[@]}"
}

global_cycles() { grep -c 'cycle [0-9]*:' "$RUN/logs/weft-global.log" || true; }
global_cycles_at_least() { (($(global_cycles) >= $1)); }

# wait_global_cycles N: N whole cycles of weft-scheduler global from now.
wait_global_cycles() {
  local want=$(($(global_cycles) + $1 + 1))
  wait_until 30 "$1 cycles of weft-scheduler global" global_cycles_at_least "$want"
}

# Karmada's execution layer for one dispatched binding: the Volcano Job in its member,
# the PodGroup and pods Volcano's controller makes there.
propagate() {
  local job=$1 member=$2 queue=${JOB_QUEUE[$1]} i
  {
    vcjob_yaml "$job" "$queue"
    cat <<YAML
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: $job
  namespace: ml
spec: {minMember: $GANG_PODS, queue: $queue}
YAML
    for ((i = 0; i < GANG_PODS; i++)); do
      cat <<YAML
---
apiVersion: v1
kind: Pod
metadata:
  name: $job-worker-$i
  namespace: ml
  labels: {volcano.sh/job-name: $job, volcano.sh/task-spec: worker}
  annotations: {scheduling.k8s.io/group-name: $job}
spec:
  schedulerName: weft
  containers: [$(trainer_container)]
YAML
    done
  } >"$RUN/manifests/work-$job.yaml"
  kcm "$member" apply -f "$RUN/manifests/work-$job.yaml" >/dev/null || fail "could not create $job's work in member $member"
  echo "$job $member" >>"$STATE/propagated.txt"
}

# Every dispatched binding not propagated yet goes to its member.
propagate_dispatched() {
  touch "$STATE/propagated.txt"
  local job member
  while read -r job member; do
    grep -q "^$job " "$STATE/propagated.txt" && continue
    propagate "$job" "$member"
    info "Karmada: $job's Volcano Job, PodGroup and $GANG_PODS pods created in member $member"
  done < <(bindings_json | jq -r '.items[] | select(.spec.suspension.scheduling == false and (.spec.clusters | length) > 0)
                                  | "\(.spec.resource.name) \(.spec.clusters[0].name)"')
}

# A job that finished: Karmada removes its binding with the workload, and its work in the member.
finish_job() {
  local job=$1 member=$2
  kc delete jobs.batch.volcano.sh "$job" -n ml >/dev/null || fail "could not delete Job $job"
  kc delete resourcebindings.work.karmada.io "$job-job" -n ml >/dev/null || fail "could not delete ResourceBinding $job-job"
  kcm "$member" delete pods,podgroups.scheduling.volcano.sh -n ml -l "volcano.sh/job-name=$job" >/dev/null
  kcm "$member" delete podgroups.scheduling.volcano.sh "$job" -n ml >/dev/null
  kcm "$member" delete jobs.batch.volcano.sh "$job" -n ml >/dev/null || fail "could not delete $job in member $member"
  sed -i "/^$job /d" "$STATE/propagated.txt"
}

member_pods_json() { kcm "$1" get pods -n ml -o json; }

# The propagated jobs' pods are all bound in their members.
propagated_bound() {
  local job member n
  while read -r job member; do
    n=$(member_pods_json "$member" | jq --arg j "$job" '[.items[] | select(.metadata.labels["volcano.sh/job-name"] == $j and .spec.nodeName)] | length')
    [ "$n" = "$GANG_PODS" ] || return 1
  done <"$STATE/propagated.txt"
}

step_submit() {
  step 2 "Volcano Jobs in two weighted queues, their ResourceBindings suspended; weft-scheduler global decides"
  write_submission
  kc apply -f "$RUN/manifests/control-plane.yaml" >/dev/null || fail "kubectl apply of the control plane's objects failed"
  detect_bindings
  info "queues: prod (weight $PROD_WEIGHT), research (weight $RESEARCH_WEIGHT)"
  info "jobs: ${JOBS[*]}"
  info "      each $GANG_PODS pods x $POD_GPUS GPUs (minAvailable $GANG_PODS); PropagationPolicy gpu-training selects them,"
  info "      their ResourceBindings carry its placement and are suspended (spec.suspension.scheduling: true)"
  local suspended
  suspended=$(bindings_json | jq --argjson p "$(kc get propagationpolicies.policy.karmada.io gpu-training -n ml -o json)" \
    '[.items[] | select(.spec.suspension.scheduling == true and .spec.placement == $p.spec.placement)] | length')
  [ "$suspended" = "${#JOBS[@]}" ] || fail "$suspended of ${#JOBS[@]} bindings are suspended with the policy's placement before weft decides"
  start_global
  wait_until 30 "weft-scheduler global to decide on every binding" all_decided "${#JOBS[@]}"
  wait_global_cycles 1
  bindings_json >"$STATE/bindings-decided.json"
  jq -r '.items[] | [.metadata.name, (if .spec.suspension.scheduling then "suspended" else "-> " + (.spec.clusters | map("\(.name) x\(.replicas)") | join(",")) end),
                     (.status.conditions[] | select(.type == "Dispatched") | .reason)] | @tsv' "$STATE/bindings-decided.json" |
    column -t -s$'\t' | sed 's/^/           /'
  step_done "every one of ${#JOBS[@]} bindings got a decision (a Dispatched condition) from weft-scheduler global"
}
