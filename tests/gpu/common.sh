# Sourced by the GPU scripts, from the repository root, with $results set:
# the results folder (absolute), the build's paths, a private work folder
# and state file, run_logged, h, record_summary, vocab_size_of and
# wait_for_port, and this machine's cuBLAS for the host.
mkdir -p "$results"
results=$(cd "$results" && pwd)
BUILD_DIR=${BUILD_DIR:-build}
host="$BUILD_DIR/bin/algenta-host"
work=$(mktemp -d)
state="$work/state.json"
python=${PYTHON:-python3}

run_logged() {  # log name, command...
  local log="$results/$1.log"; shift
  "$@" >"$log" 2>&1
  local rc=$?
  echo "exit code $rc" >>"$log"
  return $rc
}
h() { "$host" --state-file "$state" "$@"; }
record_summary() {  # name, status (0 = pass), detail: a line on stdout and in summary.txt
  printf '%-44s %s  %s\n' "$1" "$([[ $2 == 0 ]] && echo PASS || echo FAIL)" "$3" | tee -a "$results/summary.txt"
}
vocab_size_of() {  # config.json: its vocab_size
  "$python" -c "import json, sys; print(json.load(open(sys.argv[1]))['vocab_size'])" "$1"
}
wait_for_port() {  # server pid, its stdout: prints the port it listens on, or nothing
  local port=""
  for _ in $(seq 1 1200); do
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$2")
    [[ -n "$port" ]] && break
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  echo "$port"
}

source tests/gpu/host_config.sh
