# Step 2: the API stand-in with a Node per simulated host and a tainted control-plane
# node; one weft-agent per host, attached to its fabric as that host, labelling its own
# Node; a real Prometheus scraping every agent.

all_hosts() { fabric_hosts a; fabric_hosts b; }
fabric_of_host() { case "$1" in a-*) echo a ;; b-*) echo b ;; esac; }

node_manifest() {
  local name=$1
  cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: $name
  labels: {kubernetes.io/hostname: $name, kubernetes.io/os: linux}
status:
  capacity: {cpu: "$NODE_CPU_REQUESTABLE", memory: 64Gi, pods: "32"}
  allocatable: {cpu: "$NODE_CPU_REQUESTABLE", memory: 64Gi, pods: "32"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady}]
YAML
}

write_cluster_manifests() {
  local f="$RUN/manifests/nodes.yaml" h
  {
    cat <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: ml}
---
apiVersion: v1
kind: Namespace
metadata: {name: weft-system}
---
apiVersion: v1
kind: Node
metadata:
  name: control-plane
  labels: {kubernetes.io/hostname: control-plane, node-role.kubernetes.io/control-plane: ""}
spec:
  taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
status:
  capacity: {cpu: "8", memory: 16Gi, pods: "32"}
  allocatable: {cpu: "8", memory: 16Gi, pods: "32"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady}]
YAML
    for h in $(all_hosts); do node_manifest "$h"; done
  } >"$f"
}

start_kube_lite() {
  start_proc kube-lite "$BIN/kube-lite" --listen 127.0.0.1:0 --kubeconfig-out "$RUN/kubeconfig" \
    --request-log "$RUN/logs/api-requests.jsonl"
  wait_until 20 "kube-lite to listen" grep -q "listening on" "$RUN/logs/kube-lite.log"
  API_URL=$(sed -n 's/^listening on //p' "$RUN/logs/kube-lite.log" | head -1)
}

# start_agent HOST PORT: weft-agent as HOST of its fabric, its load from HOST's cgroup.
start_agent() {
  local host=$1 port=$2 fabric
  fabric=$(fabric_of_host "$host")
  local load_flags=()
  if ((AGENT_HAS_CGROUP_LOAD)); then
    # Pods report usage in the cores the Node advertises, the unit of their requests.
    load_flags=(--load-cgroup "$CGROOT/$host" --load-cgroup-cpus "$NODE_CPUS" --load-cgroup-node-cpus "$NODE_CPU_REQUESTABLE")
  else
    load_flags=(--load-backend procfs)
  fi
  # shellcheck disable=SC2046
  start_proc "agent-$host" env $(sim_env "$fabric" "$host") \
    "$BIN/weft-agent" run --node-name "$host" --listen "127.0.0.1:$port" --kubeconfig "$RUN/kubeconfig" \
    --ib-backend umad --ib-interval 5s --load-interval 1s --heartbeat 5s "${load_flags[@]}"
}

write_prometheus_config() {
  {
    cat <<YAML
global: {scrape_interval: 1s, scrape_timeout: 900ms, evaluation_interval: 1s}
scrape_configs:
  - job_name: weft-agent
    static_configs:
YAML
    local h
    for h in $(all_hosts); do
      printf '      - targets: ["127.0.0.1:%s"]\n        labels: {node: "%s"}\n' "${AGENT_PORT[$h]}" "$h"
    done
  } >"$RUN/prometheus.yml"
}

start_prometheus() {
  PROM_PORT=$(free_port)
  PROM_URL="http://127.0.0.1:$PROM_PORT"
  write_prometheus_config
  start_proc prometheus prometheus --config.file "$RUN/prometheus.yml" --storage.tsdb.path "$RUN/prometheus-data" \
    --web.listen-address "127.0.0.1:$PROM_PORT" --storage.tsdb.retention.time 1h --log.level warn
  wait_until 30 "Prometheus to be ready" curl -fsS "$PROM_URL/-/ready"
}

labels_converged() {
  kc get nodes -o json >"$STATE/nodes-labelled.json" &&
    "$REPORT" check-labels --nodes "$STATE/nodes-labelled.json" --fabrics 2 --out "$STATE/domains.json" 2>/dev/null
}

# The labels the agents found against what the generator built.
labels_match_generator() {
  local fabric host want got bad=0
  for fabric in a b; do
    while IFS=$'\t' read -r host want; do
      got=$(jq -r --arg n "$host" '.items[] | select(.metadata.name == $n) | .metadata.labels |
        [.["weft.dev/ib-fabric"], .["weft.dev/ib-leaf"], .["weft.dev/ib-spine"]] | join(" ")' "$STATE/nodes-labelled.json")
      if [ "$got" != "$want" ]; then
        note "node $host: labels '$got', generator says '$want'"
        bad=1
      fi
    done < <(jq -r '.fabric_id as $f | .hosts[] | "\(.name)\t\($f) \(.leaf) \(.spine)"' "$RUN/fabric-$fabric.json")
  done
  return $bad
}

prom_has_every_node() {
  local want=$1 metric=$2 n
  n=$(prom_query "count(count by (node) ($metric))" | jq -r '.data.result[0].value[1] // 0')
  [ "$n" = "$want" ]
}

step_cluster() {
  step 2 "kube-lite, a weft-agent per host labelling its Node, Prometheus scraping them"
  start_kube_lite
  write_cluster_manifests
  kc apply -f "$RUN/manifests/nodes.yaml" >/dev/null || fail "kubectl apply of the Nodes failed"
  local hosts n
  hosts=$(all_hosts | wc -l)
  info "kube-lite on $API_URL: $hosts Nodes + tainted control-plane (kubectl --kubeconfig $RUN/kubeconfig)"

  mkdir -p "$CGROOT"
  local h
  for h in $(all_hosts); do mkdir -p "$CGROOT/$h"; done
  declare -gA AGENT_PORT
  for h in $(all_hosts); do
    AGENT_PORT[$h]=$(free_port)
    start_agent "$h" "${AGENT_PORT[$h]}"
  done
  info "started $hosts weft-agent run (umad2sim, SIM_HOST=<host>, each on its own loopback port)"
  wait_until 90 "every agent to label its Node (weft.dev/ib-fabric, -leaf, -spine)" labels_converged
  labels_match_generator || fail "the agents' labels differ from the generated fabrics (see above)"
  info "$(jq -r 'to_entries[] | "fabric \(.key): \(.value.leaves | length) leaves, \(.value.spines | length) spine domains"' \
    "$STATE/domains.json" | paste -sd';' | sed 's/;/; /g')"

  start_prometheus
  wait_until 60 "Prometheus to scrape weft_node_cpu_busy_ratio from every agent" \
    prom_has_every_node "$hosts" weft_node_cpu_busy_ratio
  wait_until 30 "Prometheus to scrape weft_ib_port_up from every agent" prom_has_every_node "$hosts" weft_ib_port_up
  info "Prometheus on $PROM_URL scrapes $hosts agents every second"
  n=$(jq '[.items[] | select(.metadata.labels["weft.dev/ib-fabric"])] | length' "$STATE/nodes-labelled.json")
  step_done "$n Nodes labelled by their own agents, equal to the generated leaf/spine/fabric; 2 fabric ids; every agent scraped"
}
