# Step 1: the member clusters (a kube-lite each, with their GPU nodes and, on west, an
# inference service of the member's own), the Karmada control plane (a kube-lite serving
# Cluster and ResourceBinding), each member joined as a Cluster object pointing at it,
# and a weft-scheduler per member.

kcm() { local m=$1; shift; kubectl --kubeconfig "$RUN/$m.kubeconfig" "$@"; }

# A GPU node as its kubelet registers it (JSON is YAML).
gpu_node_yaml() {
  local member=$1 name=$2
  echo ---
  jq -cn --arg m "$member" --arg n "$name" '
    {cpu: "192", memory: "2Ti", "nvidia.com/gpu": "8", pods: "110"} as $size
    | {apiVersion: "v1", kind: "Node",
       metadata: {name: $n, labels: {"kubernetes.io/hostname": $n, "kubernetes.io/os": "linux",
                  "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "topology.kubernetes.io/region": $m}},
       status: {capacity: $size, allocatable: $size, conditions: [{type: "Ready", status: "True", reason: "KubeletReady"}]}}'
}

# An inference replica the member runs by itself (no ResourceBinding): bound and Running.
inference_pod_yaml() {
  local node=$1 i=$2
  cat <<YAML
---
apiVersion: v1
kind: Pod
metadata:
  name: llm-inference-$i
  namespace: serving
  labels: {app: llm-inference}
spec:
  nodeName: $node
  containers:
    - name: server
      image: registry.example/llm-server:1.0
      resources:
        requests: {cpu: "32", memory: 256Gi, nvidia.com/gpu: "$INFERENCE_GPUS"}
status: {phase: Running}
YAML
}

namespace_yaml() { printf -- '---\n{apiVersion: v1, kind: Namespace, metadata: {name: %s}}\n' "$1"; }

# The member as it stands before the demo: namespaces, a tainted control-plane node, its
# GPU nodes, the Queues Volcano Global keeps in every member, west's inference service.
write_member_state() {
  local member=$1 i node
  local f="$RUN/manifests/$member.yaml"
  {
    namespace_yaml ml
    namespace_yaml serving
    cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: $member-control-plane
  labels: {kubernetes.io/hostname: $member-control-plane, node-role.kubernetes.io/control-plane: ""}
spec:
  taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady}]
YAML
    queues_yaml
    for ((i = 0; i < NODES_PER_MEMBER; i++)); do
      node="$member-gpu-$i"
      gpu_node_yaml "$member" "$node"
      [ "$member" = west ] && inference_pod_yaml "$node" "$i"
    done
  } >"$f"
  echo "$f"
}

queues_yaml() {
  cat <<YAML
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: prod}
spec: {weight: $PROD_WEIGHT}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: research}
spec: {weight: $RESEARCH_WEIGHT}
YAML
}

# start_api NAME [STATE]: a kube-lite; its URL in API_URLS[NAME], kubeconfig RUN/NAME.kubeconfig.
declare -gA API_URLS
start_api() {
  local name=$1 state=${2:-}
  local args=(--listen 127.0.0.1:0 --kubeconfig-out "$RUN/$name.kubeconfig" --request-log "$RUN/logs/$name-requests.jsonl")
  [ -n "$state" ] && args+=(--state "$state")
  start_proc "kube-lite-$name" "$BIN/kube-lite" "${args[@]}"
  wait_until 20 "kube-lite $name to listen" grep -q "listening on" "$RUN/logs/kube-lite-$name.log"
  API_URLS[$name]=$(sed -n 's/^listening on //p' "$RUN/logs/kube-lite-$name.log" | head -1)
}

# The Cluster object `karmadactl join` writes (Push mode: Karmada reaches the member at
# its apiEndpoint), then the status Karmada's cluster-status controller keeps.
join_member() {
  local member=$1
  kc apply -f - >/dev/null <<YAML || fail "could not create Cluster $member on the control plane"
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: $member
  labels: {gpu: h100}
spec:
  apiEndpoint: ${API_URLS[$member]}
  syncMode: Push
  region: $member
YAML
  set_member_ready "$member" True
}

# The member's summed resources as Karmada's resourceSummary has them: what a dispatcher
# working on sums sees.
resource_summary() {
  local member=$1
  kcm "$member" get nodes,pods -A -o json | jq -c '
    [.items[] | select(.kind == "Node" and ((.spec.taints // []) | length == 0)) | .status.allocatable["nvidia.com/gpu"] // "0" | tonumber] as $alloc
    | [.items[] | select(.kind == "Pod" and .spec.nodeName) | .spec.containers[].resources.requests["nvidia.com/gpu"] // "0" | tonumber] as $used
    | {allocatable: {"nvidia.com/gpu": ($alloc | add // 0 | tostring)}, allocated: {"nvidia.com/gpu": ($used | add // 0 | tostring)}}'
}

# set_member_ready NAME True|False: Karmada's view of the member's health.
set_member_ready() {
  local member=$1 status=$2 reason=ClusterReady
  [ "$status" = True ] || reason=ClusterNotReachable
  local patch
  patch=$(jq -cn --arg s "$status" --arg r "$reason" --arg t "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson rs "$(resource_summary "$member")" \
    '{status: {kubernetesVersion: "v1.31.0", resourceSummary: $rs,
               conditions: [{type: "Ready", status: $s, reason: $r, lastTransitionTime: $t}]}}')
  kc patch clusters.cluster.karmada.io "$member" --subresource=status --type=merge -p "$patch" >/dev/null ||
    fail "could not write the status of Cluster $member"
}

start_member_scheduler() {
  local member=$1
  start_proc "weft-scheduler-$member" "$BIN/weft-scheduler" run --kubeconfig "$RUN/$member.kubeconfig" \
    --scheduler-name weft --period 500ms
}

step_clusters() {
  step 1 "three member clusters of GPU nodes joined to a Karmada control plane"
  local m
  for m in "${MEMBERS[@]}"; do start_api "$m" "$(write_member_state "$m")"; done
  start_api karmada
  cp "$RUN/karmada.kubeconfig" "$RUN/kubeconfig"   # kc (and the failure dump) talk to the control plane
  API_URL=${API_URLS[karmada]}
  for m in "${MEMBERS[@]}"; do
    join_member "$m"
    start_member_scheduler "$m"
    info "member $m on ${API_URLS[$m]}: $NODES_PER_MEMBER x (192 cpu, 2Ti, 8 nvidia.com/gpu)$([ "$m" = west ] && echo ", llm-inference holding $INFERENCE_GPUS GPUs of each")"
  done
  info "Karmada control plane on $API_URL (kubectl --kubeconfig $RUN/kubeconfig get clusters.cluster.karmada.io)"
  local ready
  ready=$(kc get clusters.cluster.karmada.io -o json | jq '[.items[] | select(.status.conditions[]? | .type == "Ready" and .status == "True")] | length')
  [ "$ready" = "${#MEMBERS[@]}" ] || fail "$ready of ${#MEMBERS[@]} Cluster objects are Ready"
  local endpoints
  endpoints=$(kc get clusters.cluster.karmada.io -o json | jq -r '.items[] | "\(.metadata.name)=\(.spec.apiEndpoint)"' | sort | tr '\n' ' ')
  for m in "${MEMBERS[@]}"; do
    [[ " $endpoints" == *" $m=${API_URLS[$m]} "* ]] || fail "Cluster $m does not point at its member (${API_URLS[$m]}): $endpoints"
  done
  step_done "${#MEMBERS[@]} members Ready on the control plane, each Cluster's apiEndpoint its own API server"
}
