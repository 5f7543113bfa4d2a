# Step 4's last part: pods that carry what kube-scheduler honours beyond requests — required
# pod anti-affinity, a topology spread constraint over the leaves, a claim on a node-local
# volume — checked from the API, then removed so the later steps see the cluster they were
# written for.

# contract_pod NAME LABELS EXTRA-SPEC-YAML: a small pod of namespace web-contract.
contract_pod() { small_pod web-contract "$1" "$3" "$2" "" 100m 64Mi; }

write_contract_manifests() {
  local volume_node=$1 f="$RUN/manifests/pod-contract.yaml" i
  {
    cat <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: web-contract}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: demo-local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: demo-local-pv}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: demo-local
  local: {path: /mnt/demo}
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [$volume_node]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: db-data, namespace: web-contract}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: demo-local
  resources: {requests: {storage: 5Gi}}
YAML
    for ((i = 0; i < 3; i++)); do
      contract_pod "apart-$i" "app: apart" "  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - {labelSelector: {matchLabels: {app: apart}}, topologyKey: kubernetes.io/hostname}"
    done
    for ((i = 0; i < 4; i++)); do
      contract_pod "spread-$i" "app: spread" "  topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: weft.dev/ib-leaf, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: spread}}}"
    done
    contract_pod db "app: db" "  volumes:
    - {name: data, persistentVolumeClaim: {claimName: db-data}}"
  } >"$f"
}

contract_pods_bound() {
  [ "$(kc get pods -n web-contract -o json | jq '[.items[] | select(.spec.nodeName)] | length')" = 8 ]
}

contract_objects_gone() {
  [ "$(kc get pods,pvc -n web-contract -o json | jq '.items | length')" = 0 ] &&
    ! kc get pv demo-local-pv >/dev/null 2>&1
}

# The claims, from the API: the anti-affine pods on three nodes, the spread pods' count per
# leaf (over every leaf of the nodes they may use) within 1, the volume's pod on its node
# and the volume bound to its claim (weft's PreBind).
check_contract() {
  local pods nodes pv
  pods=$(kc get pods -n web-contract -o json)
  nodes=$(kc get nodes -o json)
  pv=$(kc get pv demo-local-pv -o json)
  [ "$(jq '[.items[] | select(.metadata.labels.app == "apart") | .spec.nodeName] | unique | length' <<<"$pods")" = 3 ] ||
    fail "the three anti-affine pods do not sit on three nodes"
  local skew
  skew=$(jq -n --argjson pods "$pods" --argjson nodes "$nodes" '
    ($nodes.items | map(select(.metadata.labels["weft.dev/ib-leaf"] and (.spec.unschedulable | not)))
      | map({key: .metadata.name, value: .metadata.labels["weft.dev/ib-leaf"]}) | from_entries) as $leaf
    | ([$leaf[]] | unique | map({key: ., value: 0}) | from_entries) as $zero
    | reduce ($pods.items[] | select(.metadata.labels.app == "spread") | $leaf[.spec.nodeName]) as $l ($zero; .[$l] += 1)
    | [.[]] | max - min')
  [ "$skew" -le 1 ] || fail "the spread pods' skew over the leaves is $skew (maxSkew 1)"
  local db_node volume_node claim
  db_node=$(jq -r '.items[] | select(.metadata.name == "db") | .spec.nodeName' <<<"$pods")
  volume_node=$(jq -r '.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]' <<<"$pv")
  claim=$(jq -r '.spec.claimRef.name // ""' <<<"$pv")
  [ "$db_node" = "$volume_node" ] || fail "db runs on $db_node, its volume is on $volume_node"
  [ "$claim" = db-data ] || fail "the local volume is not bound to db-data (claimRef '$claim')"
  info "apart-0..2 on $(jq -r '[.items[] | select(.metadata.labels.app == "apart") | .spec.nodeName] | join(", ")' <<<"$pods");" \
    "spread-0..3 over the leaves, skew $skew; db on $db_node with its volume"
}

step_pod_contract_jobs() {
  local volume_node
  # The fabric node with the most cpu not yet requested: the volume pins its pod there.
  volume_node=$(jq -rn --argjson nodes "$(kc get nodes -o json)" --argjson pods "$(kc get pods -A -o json)" '
    def cores: tostring | if endswith("m") then (.[:-1] | tonumber) / 1000 else tonumber end;
    (reduce ($pods.items[] | select(.spec.nodeName)) as $p ({};
      .[$p.spec.nodeName] += ([$p.spec.containers[].resources.requests.cpu // "0" | cores] | add))) as $used
    | [$nodes.items[] | select(.metadata.labels["weft.dev/ib-leaf"] and (.spec.unschedulable | not))
       | {name: .metadata.name, free: ((.status.allocatable.cpu | cores) - ($used[.metadata.name] // 0))}]
    | max_by(.free) | .name')
  [ -n "$volume_node" ] && [ "$volume_node" != null ] || fail "no fabric node to hold the local volume"
  write_contract_manifests "$volume_node"
  kc apply -f "$RUN/manifests/pod-contract.yaml" >/dev/null || fail "kubectl apply of the pod-contract jobs failed"
  # kube-lite runs no PersistentVolume controller: the demo marks the new volume Available as it would.
  kc patch pv demo-local-pv --subresource=status --type=merge -p '{"status":{"phase":"Available"}}' >/dev/null ||
    fail "marking the local volume Available failed"
  info "submitted: apart (3 pods, required anti-affinity per host), spread (4 pods, maxSkew 1 over weft.dev/ib-leaf),"
  info "           db (a claim on a node-local volume of $volume_node, WaitForFirstConsumer)"
  wait_until 60 "the pod-contract pods to be bound" contract_pods_bound
  check_contract
  kc delete pods,pvc -n web-contract --all --wait=false >/dev/null || fail "kubectl delete of the pod-contract pods failed"
  kc delete pv demo-local-pv --wait=false >/dev/null || fail "kubectl delete of the local volume failed"
  wait_until 60 "the pod-contract objects to be gone" contract_objects_gone
  info "anti-affinity, topology spread and the local volume honoured (checked from the API)"
}
