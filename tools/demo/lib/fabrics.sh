# Step 1: two simulated InfiniBand fabrics from the fat-tree generator, each served by
# ibsim with a real OpenSM; fabric A with a master and a standby subnet manager.

# make_fabric NAME NUMBER GENERATOR-FLAGS...: writes $RUN/fabric-NAME.{net,json}.
make_fabric() {
  local name=$1 number=$2
  shift 2
  "$BIN/weft-fat-tree" --fabric "$number" --prefix "$name-" --out "$RUN/fabric-$name.net" \
    --json "$RUN/fabric-$name.json" "$@" || fail "weft-fat-tree $* failed"
}

fabric_hosts() { jq -r '.hosts[].name' "$RUN/fabric-$1.json"; }
fabric_id() { jq -r '.fabric_id' "$RUN/fabric-$1.json"; }
host_port_guid() { jq -r --arg h "$2" '.hosts[] | select(.name == $h) | .port_guid' "$RUN/fabric-$1.json"; }
sockname() { echo "weft-demo-$$-$1"; }

# sim_env FABRIC HOST: the environment that attaches a process to FABRIC as HOST.
sim_env() {
  echo "LD_PRELOAD=$UMAD2SIM" "SIM_HOST=$2" "IBSIM_SOCKNAME=$(sockname "$1")"
}

start_ibsim() {
  local name=$1
  start_proc_stdin "ibsim-$name" "$RUN/ibsim-$name.in" \
    env IBSIM_SOCKNAME="$(sockname "$name")" ibsim -s "$RUN/fabric-$name.net"
  wait_until 30 "ibsim of fabric $name to be ready" grep -q "simulator ready" "$RUN/logs/ibsim-$name.log"
}

# start_sm FABRIC HOST PRIORITY ROLE: OpenSM attached as HOST. Fast failover: the
# standby polls the master every 300 ms and gives up on it after 2 misses.
start_sm() {
  local fabric=$1 host=$2 prio=$3 role=$4 dir="$RUN/sm-$1-$2"
  mkdir -p "$dir"
  cat >"$dir/opensm.conf" <<CONF
dump_files_dir $dir
sweep_interval 2
sminfo_polling_timeout 300
polling_retry_number 2
force_log_flush TRUE
CONF
  # shellcheck disable=SC2046
  start_proc "opensm-$fabric-$role" env $(sim_env "$fabric" "$host") OSM_CACHE_DIR="$dir" OSM_TMP_DIR="$dir" \
    opensm -F "$dir/opensm.conf" -p "$prio" -f "$dir/opensm.log"
  SM_JSON=$(jq -c --arg f "$fabric" --arg h "$host" --arg g "$(host_port_guid "$fabric" "$host")" \
    --argjson p "$prio" --arg r "$role" '. + [{fabric: $f, host: $h, guid: $g, priority: $p, role: $r}]' <<<"$SM_JSON")
}

sm_in_state() { grep -q "$3" "$RUN/sm-$1-$2/opensm.log" 2>/dev/null; }

step_fabrics() {
  step 1 "two simulated IB fabrics with real subnet managers"
  [ -x "$UMAD2SIM" ] || [ -f "$UMAD2SIM" ] || fail "umad2sim ($UMAD2SIM) is missing: install ibsim-utils"
  command -v ibsim >/dev/null || fail "ibsim is missing: install ibsim-utils (no fallback: the fabrics are the demo)"
  command -v opensm >/dev/null || fail "opensm is missing: install opensm"

  make_fabric a 1 --levels 3 --hosts "$A_HOSTS" --hosts-per-leaf "$A_HOSTS_PER_LEAF" --leaves-per-pod 2 \
    --aggs-per-pod 2 --cores-per-agg 1
  make_fabric b 2 --levels 2 --hosts "$B_HOSTS" --hosts-per-leaf "$B_HOSTS_PER_LEAF" --spines 2
  info "fabric a: 3-level fat tree, $A_HOSTS hosts, $(jq '.switches | length' "$RUN/fabric-a.json") switches, id $(fabric_id a)"
  info "fabric b: 2-level fat tree, $B_HOSTS hosts, $(jq '.switches | length' "$RUN/fabric-b.json") switches, id $(fabric_id b)"

  start_ibsim a
  start_ibsim b
  SM_JSON="[]"
  local a0 a1 b0
  a0=$(fabric_hosts a | sed -n 1p)
  a1=$(fabric_hosts a | sed -n "$((A_HOSTS_PER_LEAF + 1))p")   # under another leaf
  b0=$(fabric_hosts b | sed -n 1p)
  SM_A_MASTER=$a0
  SM_A_STANDBY=$a1
  start_sm a "$a0" 14 master
  start_sm b "$b0" 14 master
  wait_until 60 "OpenSM on fabric a to bring the subnet up" sm_in_state a "$a0" "SUBNET UP"
  wait_until 60 "OpenSM on fabric b to bring the subnet up" sm_in_state b "$b0" "SUBNET UP"
  # The standby joins once the master is up, so the roles are clear.
  start_sm a "$a1" 10 standby
  wait_until 60 "the second OpenSM on fabric a to enter STANDBY" sm_in_state a "$a1" "STANDBY"

  # A real MAD from a host of each fabric: who is master.
  local out
  # shellcheck disable=SC2046
  out=$(env $(sim_env a "$(fabric_hosts a | tail -1)") sminfo 2>&1) || fail "sminfo on fabric a: $out"
  info "sminfo on fabric a: $out"
  [[ "$out" == *"$(host_port_guid a "$a0" | sed 's/^0x0*//')"* && "$out" == *MASTER* ]] ||
    fail "sminfo on fabric a does not name $a0 ($(host_port_guid a "$a0")) as master: $out"
  info "fabric a: master SM on $a0 (priority 14), standby on $a1 (priority 10); fabric b: master on $b0"
  step_done "ibsim serves both fabrics; OpenSM swept them (SUBNET UP); sminfo answers MASTER on a; a standby waits on a"
}
