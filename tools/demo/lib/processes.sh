# Every process the demo starts is recorded here and stopped on exit or Ctrl-C:
# subnet managers before ibsim (ibsim last), each SIGTERM then SIGKILL after a grace.
# Every child also carries WEFT_DEMO_RUN in its environment, so a test can prove that
# none is left.

PROC_PIDS=()
PROC_NAMES=()

# start_proc NAME COMMAND...: runs in the background, output to logs/NAME.log.
start_proc() {
  local name=$1
  shift
  "$@" >"$RUN/logs/$name.log" 2>&1 </dev/null &
  PROC_PIDS+=("$!")
  PROC_NAMES+=("$name")
}

# start_proc_stdin NAME FIFO COMMAND...: same, stdin from a FIFO held open by the demo
# (ibsim reads console commands there and exits on EOF).
start_proc_stdin() {
  local name=$1 fifo=$2
  shift 2
  mkfifo "$fifo"
  exec {_fd}<>"$fifo"
  "$@" >"$RUN/logs/$name.log" 2>&1 <"$fifo" &
  PROC_PIDS+=("$!")
  PROC_NAMES+=("$name")
}

pid_of() {
  local i
  for i in "${!PROC_NAMES[@]}"; do
    [ "${PROC_NAMES[$i]}" = "$1" ] && { echo "${PROC_PIDS[$i]}"; return 0; }
  done
  return 1
}

alive() { kill -0 "$1" 2>/dev/null; }

# stop_pids GRACE_SECONDS PID...: SIGTERM all, wait up to the grace, SIGKILL the rest.
stop_pids() {
  local grace=$1 p
  shift
  (($# == 0)) && return 0
  kill -TERM "$@" 2>/dev/null || true
  local deadline
  deadline=$(awk -v s="$grace" 'BEGIN { print s * 10 }')
  for ((i = 0; i < deadline; i++)); do
    local any=0
    for p in "$@"; do alive "$p" && any=1; done
    ((any)) || break
    sleep 0.1
  done
  kill -KILL "$@" 2>/dev/null || true
  for p in "$@"; do wait "$p" 2>/dev/null || true; done
}

# stop_matching PATTERN: stops the processes whose names match the glob PATTERN and
# forgets them (so cleanup never signals a reused pid).
stop_matching() {
  local i pids=() keep_pids=() keep_names=()
  for i in "${!PROC_NAMES[@]}"; do
    # shellcheck disable=SC2053
    if [[ "${PROC_NAMES[$i]}" == $1 ]]; then
      pids+=("${PROC_PIDS[$i]}")
    else
      keep_pids+=("${PROC_PIDS[$i]}")
      keep_names+=("${PROC_NAMES[$i]}")
    fi
  done
  stop_pids 2 "${pids[@]}"
  PROC_PIDS=("${keep_pids[@]}")
  PROC_NAMES=("${keep_names[@]}")
}

stop_all() {
  local i rest=() last=()
  for ((i = ${#PROC_PIDS[@]} - 1; i >= 0; i--)); do
    case "${PROC_NAMES[$i]}" in
      ibsim-*) last+=("${PROC_PIDS[$i]}") ;;
      *) rest+=("${PROC_PIDS[$i]}") ;;
    esac
  done
  stop_pids 4 "${rest[@]}"
  stop_pids 1 "${last[@]}"
  PROC_PIDS=()
  PROC_NAMES=()
}

# Kills whatever is still inside the demo's cgroups and removes them, deepest first.
remove_cgroups() {
  [ -n "${CGROOT:-}" ] && [ -d "$CGROOT" ] || return 0
  local dir pid
  for dir in $(find "$CGROOT" -depth -type d); do
    for pid in $(cat "$dir/cgroup.procs" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  done
  for dir in $(find "$CGROOT" -depth -type d); do
    for ((i = 0; i < 20; i++)); do rmdir "$dir" 2>/dev/null && break; sleep 0.05; done
  done
}

cleanup() {
  local code=$?
  trap - EXIT INT TERM
  set +e
  if ((${#PROC_PIDS[@]})); then
    printf '\n[%s] stopping %d processes\n' "$(elapsed)" "${#PROC_PIDS[@]}"
  fi
  stop_all
  remove_cgroups
  # Logs, manifests and state stay in $RUN for a look; Prometheus' database does not.
  [ -n "${RUN:-}" ] && rm -rf "$RUN/prometheus-data"
  exit "$code"
}

on_signal() {
  if ((${KEEPING:-0})); then exit 0; fi
  printf '\n[%s] interrupted\n' "$(elapsed)"
  exit 130
}
