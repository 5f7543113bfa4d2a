# A rail-optimized unit (weft-fat-tree --rails): RAIL_NODES nodes with RAIL_COUNT compute
# HCAs each, HCA r of every node on rail leaf r, and one storage HCA per node on a
# storage subnet with its own SM. A gang runs on the unit; then the smallest-GUID rail of
# one node goes down: the node keeps its rail group (labels unchanged but
# weft.dev/ib-rails-active), the gang keeps its nodes, and the picture shows the node degraded.
#
# umad2sim attaches a process to ONE simulated HCA, so a weft-agent cannot be every HCA of
# a rail node here: the unit's nodes are probed by tests/ib/ib_sim_probe (the agent's probe
# code over ibsim's client protocol, all HCAs of the host at once) and the demo writes its
# labels and weft.dev/ib-ports annotation to the Node as the agent would.

RAIL_COUNT=4 RAIL_NODES=3 RAIL_STORAGE_HCAS=1
RAIL_POD_CPU=12 RAIL_POD_MEMORY=16Gi      # one gang pod fills a node
RAIL_LABEL=demo.weft.dev/rail-unit       # rail-train's nodeSelector

# Called from run-demo's main: runs the rail step just before the summary.
add_rail_step() {
  local s out=()
  for s in "${steps[@]}"; do
    [ "$s" = step_report ] && out+=(step_rails)
    out+=("$s")
  done
  steps=("${out[@]}")
}

rail_units_json() { echo "$RUN/rail-units.json"; }
rail_nodes() { jq -r '.nodes[].name' "$(rail_units_json)"; }

make_rail_unit() {
  "$BIN/weft-fat-tree" --rails "$RAIL_COUNT" --nodes-per-unit "$RAIL_NODES" --units 1 --storage-hcas "$RAIL_STORAGE_HCAS" \
    --fabric 3 --prefix r- --spines 2 --out "$RUN/rails" --json "$(rail_units_json)" || fail "weft-fat-tree --rails failed"
  mv "$RUN/rails-plane0.net" "$RUN/fabric-r0.net"
  mv "$RUN/rails-storage.net" "$RUN/fabric-r1.net"
  local i
  for i in 0 1; do jq ".subnets[$i]" "$(rail_units_json)" >"$RUN/fabric-r$i.json"; done
}

# rail_probe NODE [RECALL-FILE]: the probe JSON of every HCA of NODE.
rail_probe() {
  local node=$1 recall=${2:-} args=()
  mapfile -t args < <(jq -r --arg n "$node" --arg s0 "$(sockname r0)" --arg s1 "$(sockname r1)" \
    '.nodes[] | select(.name == $n) | .hcas[] | "--hca", "\(.device)=\(if .subnet == 0 then $s0 else $s1 end):\(.node)"' \
    "$(rail_units_json)")
  [ -n "$recall" ] && args+=(--recall "$recall")
  "$RAIL_PROBE" "${args[@]}"
}

# publish_probe NODE PROBE-JSON: what the agent writes on its own Node (labels + ib-ports).
publish_probe() {
  local patch
  patch=$(jq -c --arg k "$PORTS_ANNOTATION" '{metadata: {labels: .labels, annotations: {($k): .annotation}}}' <<<"$2")
  kc patch node "$1" --type merge -p "$patch" >/dev/null || fail "patching Node $1 failed"
}

# cluster.sh's Node, with the label rail-train selects.
rail_node_manifest() {
  node_manifest "$1" | sed "s|kubernetes.io/os: linux}|kubernetes.io/os: linux, $RAIL_LABEL: \"true\"}|"
}

rail_gang_manifests() {
  local i
  cat <<YAML
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: rails}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: rail-train, namespace: ml}
spec:
  minMember: $RAIL_NODES
  queue: rails
  networkTopology: {mode: hard, highestTierAllowed: 1}
YAML
  for ((i = 0; i < RAIL_NODES; i++)); do
    small_pod ml "rail-train-$i" "  nodeSelector: {$RAIL_LABEL: \"true\"}" "weft.dev/demo-job: rail-train, app: rail-train" \
      "scheduling.k8s.io/group-name: rail-train" "$RAIL_POD_CPU" "$RAIL_POD_MEMORY"
  done
}

# "node label1 label2 ..." per rail node, as the API has them now.
rail_labels_now() {
  kc get nodes -o json | jq -r --arg p "weft.dev/" '.items[] | select(.metadata.name | startswith("r-")) |
    "\(.metadata.name) \(.metadata.labels["weft.dev/ib-fabric"]) \(.metadata.labels["weft.dev/ib-leaf"]) \(.metadata.labels["weft.dev/ib-spine"]) \(.metadata.labels["weft.dev/ib-rails"]) \(.metadata.labels["weft.dev/ib-rails-active"])"' | sort
}

rail_placements_now() {
  kc get pods -n ml -o json | jq -r '.items[] | select(.metadata.name | startswith("rail-train-")) |
    "\(.metadata.name) \(.spec.nodeName // "-") \(.status.phase)"' | sort
}

rail_gang_running() {
  [ "$(rail_placements_now | awk '$3 == "Running" && $2 != "-"' | wc -l)" = "$RAIL_NODES" ]
}

port_down() { jq -e --arg d "$2" '.ib.ports[] | select(.device == $d and .state == "DOWN")' <<<"$1" >/dev/null; }

step_rails() {
  step $((STEP_NO + 1)) "a rail-optimized unit; one rail goes down; labels and placements stay"
  RAIL_PROBE="$BUILD/tests/ib/ib_sim_probe"
  PORTS_ANNOTATION=weft.dev/ib-ports
  need_binary "$RAIL_PROBE"
  make_rail_unit
  start_ibsim r0
  start_ibsim r1
  local h0 h1
  h0=$(jq -r '.hosts[0].name' "$RUN/fabric-r0.json")
  h1=$(jq -r '.hosts[0].name' "$RUN/fabric-r1.json")
  start_sm r0 "$h0" 14 master
  start_sm r1 "$h1" 14 master
  wait_until 60 "OpenSM on the rail subnet to bring it up" sm_in_state r0 "$h0" "SUBNET UP"
  wait_until 60 "OpenSM on the storage subnet to bring it up" sm_in_state r1 "$h1" "SUBNET UP"
  info "rail unit: $RAIL_NODES nodes x $RAIL_COUNT rails on $RAIL_COUNT rail leaves (fabric id $(jq -r .fabric_id "$RUN/fabric-r0.json")), $RAIL_STORAGE_HCAS storage HCA each on a storage subnet with its own SM"

  local n probe
  { for n in $(rail_nodes); do rail_node_manifest "$n"; done; } >"$RUN/manifests/rail-nodes.yaml"
  kc apply -f "$RUN/manifests/rail-nodes.yaml" >/dev/null || fail "kubectl apply of the rail Nodes failed"
  for n in $(rail_nodes); do
    probe=$(rail_probe "$n") || fail "probe of every HCA of $n failed: $probe"
    publish_probe "$n" "$probe"
    local want got
    want=$(jq -r --arg n "$n" --arg f "$(jq -r .fabric_id "$RUN/fabric-r0.json")" \
      '.nodes[] | select(.name == $n) | "\($f) \(.rail_group) \(.spine)"' "$(rail_units_json)")
    got=$(jq -r '.labels | "\(.["weft.dev/ib-fabric"]) \(.["weft.dev/ib-leaf"]) \(.["weft.dev/ib-spine"])"' <<<"$probe")
    [ "$want" = "$got" ] || fail "node $n: labels '$got', generator says '$want'"
    info "$n: $(jq -r '[.ib.ports[] | "\(.device) \(.role)"] | join(", ")' <<<"$probe"); $(jq -r .mads <<<"$probe") MADs"
  done
  rail_labels_now >"$STATE/rail-labels-before.txt"

  # The unit's own runtime (the demo's node-runtime was started for fabrics a and b).
  local args=() scale
  for n in $(rail_nodes); do mkdir -p "$CGROOT/$n"; args+=(--node "$n"); done
  scale=$(awk -v c="$NODE_CPUS" -v n="$NODE_CPU_REQUESTABLE" -v u="$POD_USE" 'BEGIN { printf "%.6f", u * c / n }')
  start_proc node-runtime-rails "$BIN/weft-node-runtime" run --kubeconfig "$RUN/kubeconfig" --cgroup-root "$CGROOT" \
    --cpu-scale "$scale" "${args[@]}"
  rail_gang_manifests >"$RUN/manifests/rail-train.yaml"
  kc apply -f "$RUN/manifests/rail-train.yaml" >/dev/null || fail "kubectl apply of rail-train failed"
  wait_until 60 "rail-train's $RAIL_NODES pods to be bound and Running" rail_gang_running
  rail_placements_now >"$STATE/rail-placements-before.txt"
  info "rail-train (min $RAIL_NODES, hard tier 1 = one rail group): $(awk '{printf "%s on %s  ", $1, $2}' "$STATE/rail-placements-before.txt")"

  # Down: the rail on the smallest leaf GUID of a node running a gang member (the HCA
  # whose leaf used to name the node).
  local victim hca sim_node annotation
  victim=$(awk 'NR == 2 {print $2}' "$STATE/rail-placements-before.txt")
  hca=$(jq -r --arg n "$victim" '.nodes[] | select(.name == $n) | .hcas[0].device' "$(rail_units_json)")
  sim_node=$(jq -r --arg n "$victim" '.nodes[] | select(.name == $n) | .hcas[0].node' "$(rail_units_json)")
  printf 'Unlink "%s"[1]\n' "$sim_node" >"$RUN/ibsim-r0.in"
  info "unlinked $hca of $victim (ibsim node $sim_node) from its rail leaf"
  # A restarted agent: it recalls the ports it published, then probes.
  kc get node "$victim" -o json | jq -r --arg k "$PORTS_ANNOTATION" '.metadata.annotations[$k]' >"$STATE/rail-recall.json"
  local deadline=$((SECONDS + 20))
  until probe=$(rail_probe "$victim" "$STATE/rail-recall.json") && port_down "$probe" "$hca"; do
    ((SECONDS < deadline)) || fail "$hca of $victim never went DOWN"
    sleep 0.5
  done
  publish_probe "$victim" "$probe"
  sleep 5   # scheduler and descheduler cycles see the degraded node
  rail_labels_now >"$STATE/rail-labels-after.txt"
  rail_placements_now >"$STATE/rail-placements-after.txt"
  local changed
  changed=$(diff <(awk '{print $1, $2, $3, $4, $5}' "$STATE/rail-labels-before.txt") \
                 <(awk '{print $1, $2, $3, $4, $5}' "$STATE/rail-labels-after.txt")) ||
    fail "labels moved after one rail went down: $changed"
  grep -q "^$victim .* $((RAIL_COUNT - 1))\$" "$STATE/rail-labels-after.txt" ||
    fail "$victim does not say $((RAIL_COUNT - 1)) of $RAIL_COUNT rails active: $(cat "$STATE/rail-labels-after.txt")"
  changed=$(diff "$STATE/rail-placements-before.txt" "$STATE/rail-placements-after.txt") ||
    fail "rail-train moved after one rail went down: $changed"
  info "after: $victim weft.dev/ib-rails-active $((RAIL_COUNT - 1)) of $RAIL_COUNT; fabric, rail group (ib-leaf) and spine labels unchanged"
  write_rails_json "$victim" "$hca"
  step_done "a node of $RAIL_COUNT rails + storage probed HCA by HCA; its smallest-GUID rail down: fabric, rail group and spine labels unchanged, ib-rails-active $((RAIL_COUNT - 1)); rail-train kept its $RAIL_NODES nodes"
}

write_rails_json() {
  local victim=$1 hca=$2
  jq -n --rawfile lb "$STATE/rail-labels-before.txt" --rawfile la "$STATE/rail-labels-after.txt" \
    --rawfile pa "$STATE/rail-placements-after.txt" --arg v "$victim" --arg d "$hca" \
    --arg f "$(jq -r .fabric_id "$RUN/fabric-r0.json")" --argjson rails "$RAIL_COUNT" '
    def rows($t): [$t | split("\n")[] | select(length > 0) | split(" ")];
    (rows($lb) | map({(.[0]): {leaf: .[2], spine: .[3], active: (.[5] | tonumber)}}) | add) as $before
    | {fabric: $f, rails: $rails, downed: {node: $v, device: $d}, gang: "rail-train",
       nodes: [rows($la)[] | {name: .[0], fabric: .[1], leaf: .[2], spine: .[3], rails: (.[4] | tonumber),
                              active: (.[5] | tonumber), leaf_before: $before[.[0]].leaf,
                              active_before: $before[.[0]].active}],
       pods: [rows($pa)[] | {pod: .[0], node: .[1], phase: .[2]}]}' >"$STATE/rails.json"
}
