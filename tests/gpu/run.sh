#!/usr/bin/env bash
# GPU checks, run on the H200 test machine: uses an existing build/ (built
# elsewhere and carried over) or builds one, then checks the host against the
# real driver and card. Writes logs and summary.json to the folder given.
#   tests/gpu/run.sh RESULTS_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/run.sh RESULTS_DIR}
mkdir -p "$results"
BUILD_DIR=${BUILD_DIR:-build}
host="$BUILD_DIR/bin/algenta-host"
state=$(mktemp -d)/state.json

if [[ ! -x "$host" ]]; then
  scripts/build >"$results/build.log" 2>&1 || { echo "build failed (see build.log)"; exit 1; }
fi

checks=()
record() {  # name, passed (0/1), detail
  checks+=("{\"name\": \"$1\", \"passed\": $([[ $2 == 0 ]] && echo true || echo false), \"detail\": \"$3\"}")
  printf '%-40s %s  %s\n' "$1" "$([[ $2 == 0 ]] && echo PASS || echo FAIL)" "$3"
}
run_logged() {  # log name, command...
  local log="$results/$1.log"; shift
  "$@" >"$log" 2>&1
  local rc=$?
  echo "exit code $rc" >>"$log"
  return $rc
}

nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv >"$results/nvidia-smi.log" 2>&1

run_logged doctor "$host" --state-file "$state" doctor
doctor_rc=$?
grep -q "compute capability 9.0" "$results/doctor.log"; record doctor_reports_9.0 $? "doctor sees the card as 9.0"
grep -q "selected cuda_sm90a" "$results/doctor.log"; record doctor_selects_cuda_sm90a $? "exit $doctor_rc"
grep -q "loaded through the verified path (sealed memfd); descriptor: cuda_sm90a role=engine target=sm_90a" \
  "$results/doctor.log"; record sm90a_loads_and_answers $? "descriptor from the plugin itself"

run_logged backends "$host" --state-file "$state" serve --backends
grep -q "yes (automatic choice on this host)" "$results/backends.log"; record backends_meets_sm90a $? ""

model_dir=$(mktemp -d)
for plugin in cuda_sm90a cuda_sm89 cuda_sm80 cuda_sm75; do
  run_logged "serve_$plugin" "$host" --state-file "$state" serve --plugin "$plugin" --model "$model_dir"
  grep -q "selected $plugin role=engine" "$results/serve_$plugin.log"
  record "serve_loads_$plugin" $? "explicit --plugin $plugin on this card"
done

if command -v cuobjdump >/dev/null; then
  for target in 75 80 89 90a; do
    lib="$BUILD_DIR/lib/algenta/plugins/vendor/libalgenta_cuda_sm$target.so"
    cuobjdump --list-elf --list-ptx "$lib" >"$results/cuobjdump_sm$target.log" 2>&1
    grep -q "sm_$target" "$results/cuobjdump_sm$target.log" && grep -q "\.ptx" "$results/cuobjdump_sm$target.log"
    record "fatbin_sm$target" $? "SASS and PTX for sm_$target"
  done
fi

# Kernel exactness: integer inputs equal to the bit, batch-invariant rows.
exactness="$BUILD_DIR/bin/kernel_exactness"
if [[ -x "$exactness" ]]; then
  run_logged kernel_exactness "$exactness" "$results/kernel_exactness.json"
  exactness_rc=$?
  record kernel_exactness $exactness_rc "$(grep -o 'decode_gemm: .*' "$results/kernel_exactness.log" | tail -1)"
else
  record kernel_exactness 1 "$exactness not built"
fi

{
  echo "{\"checks\": ["
  (IFS=,; echo "${checks[*]}")
  echo "]}"
} >"$results/summary.json"
! grep -q '"passed": false' "$results/summary.json"
