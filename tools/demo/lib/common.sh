# Shared helpers of the demo: output with elapsed time, failing loudly, waiting with
# deadlines, free ports, kubectl and Prometheus access.

DEMO_T0=$(date +%s.%N)
CURRENT_STEP="setup"

elapsed() { awk -v t0="$DEMO_T0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%6.1fs", t1 - t0 }'; }

if [ -t 1 ]; then
  C_BOLD=$'\e[1m'; C_DIM=$'\e[2m'; C_RED=$'\e[31m'; C_GREEN=$'\e[32m'; C_YELLOW=$'\e[33m'; C_OFF=$'\e[0m'
else
  C_BOLD=; C_DIM=; C_RED=; C_GREEN=; C_YELLOW=; C_OFF=
fi

say()  { printf '%s[%s]%s %s\n' "$C_DIM" "$(elapsed)" "$C_OFF" "$*"; }
info() { printf '           %s\n' "$*"; }
note() { printf '           %s%s%s\n' "$C_YELLOW" "$*" "$C_OFF"; }
ok()   { printf '           %s✓ %s%s\n' "$C_GREEN" "$*" "$C_OFF"; }

# fail MESSAGE: stops the demo, naming the step whose claim did not hold.
fail() {
  printf '\n%sdemo FAILED in step %s: %s%s\n' "$C_RED$C_BOLD" "$CURRENT_STEP" "$*" "$C_OFF" >&2
  if [ -n "${RUN:-}" ]; then
    if [ -f "$RUN/kubeconfig" ]; then
      kc get nodes,pods,podgroups.scheduling.volcano.sh,events -A -o wide >"$RUN/logs/cluster-at-failure.txt" 2>&1
      kc get pods,podgroups.scheduling.volcano.sh -A -o yaml >>"$RUN/logs/cluster-at-failure.txt" 2>&1
    fi
    printf 'logs of every process: %s/logs (the cluster as it was: cluster-at-failure.txt)\n' "$RUN" >&2
  fi
  exit 1
}

# wait_until SECONDS DESCRIPTION COMMAND...: polls every 0.5 s until COMMAND succeeds.
wait_until() {
  local timeout=$1 what=$2
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "timed out after ${timeout}s waiting for $what"
    sleep 0.5
  done
}

# A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

need_binary() {
  local path=$1
  [ -x "$path" ] || fail "$path is not built (run ./scripts/build)"
}

kc() { kubectl --kubeconfig "$RUN/kubeconfig" "$@"; }

# dump NAME: the cluster as the API has it now, into the state dir.
dump_cluster() {
  local tag=$1
  kc get nodes -o json >"$STATE/nodes-$tag.json"
  kc get pods -A -o json >"$STATE/pods-$tag.json"
  kc get podgroups.scheduling.volcano.sh -A -o json >"$STATE/podgroups.json" 2>/dev/null ||
    echo '{"items":[]}' >"$STATE/podgroups.json"
  cp "$STATE/podgroups.json" "$STATE/podgroups-$tag.json"   # the summary reads each dump with its own
}

# prom_query PROMQL: the raw JSON answer of an instant query.
prom_query() {
  curl -fsS --max-time 5 "$PROM_URL/api/v1/query" --data-urlencode "query=$1"
}

# prom_by_node PROMQL: {"node": value} of an instant query.
prom_by_node() {
  local f="$RUN/prom-answer.json"
  prom_query "$1" >"$f" && "$REPORT" prom-vector "$f"
}

# step N TITLE: starts a step; step_done CLAIM: ends it with what it proved.
STEPS_JSON="[]"
step() {
  CURRENT_STEP="$1 ($2)"
  STEP_START=$(date +%s.%N)
  printf '\n%s[%s] step %s: %s%s\n' "$C_BOLD" "$(elapsed)" "$1" "$2" "$C_OFF"
  STEP_NO=$1
  STEP_TITLE=$2
}
step_done() {
  local secs
  secs=$(awk -v a="$STEP_START" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  ok "proved: $*"
  STEPS_JSON=$(jq -c --arg n "$STEP_NO" --arg t "$STEP_TITLE" --arg p "$*" --argjson s "$secs" \
    '. + [{step: ($n|tonumber), title: $t, proves: $p, seconds: $s, ok: true}]' <<<"$STEPS_JSON")
  echo "$STEPS_JSON" >"$STATE/steps.json"
}
