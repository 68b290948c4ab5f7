# Sourced by the GPU scripts, from the repository root, with $results set:
# the results folder (absolute), the build's paths, a private work folder
# and state file, run_logged and h, and this machine's cuBLAS for the host.
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

source tests/gpu/host_config.sh
