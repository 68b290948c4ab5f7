#!/usr/bin/env bash
# One build's engine options against each other on the card: bench_quick.sh
# (verify, then bench) once per option set, the sets alternating for ROUNDS
# rounds in one command, so that clock drift hits every set alike.
#   tests/gpu/bench_options.sh RESULTS_DIR "NAME=VALUE ..." ["NAME=VALUE ..." ...]
# e.g. tests/gpu/bench_options.sh r "" "ALGENTA_CUDA_PREFILL_GRAPHS=1" \
#        "ALGENTA_CUDA_PREFILL_GRAPHS=1 ALGENTA_CUDA_STACKED_HALVES=1 ALGENTA_CUDA_ROPE_IN_ATTENTION=1"
# (ROUNDS: 2; CONFIGS, SHAPES, POLICY, BUILD_DIR: as bench_quick.sh.) Each
# run's results go to RESULTS_DIR/<round>-<set index>; index.txt names the sets.
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/bench_options.sh RESULTS_DIR "NAME=VALUE ..." ...}
shift
[[ $# -ge 1 ]] || { echo "bench_options: give at least one option set (\"\" for none)" >&2; exit 1; }
mkdir -p "$results"
: >"$results/index.txt"
for ((i = 1; i <= $#; ++i)); do
  set_text=${!i}
  for assignment in $set_text; do
    [[ $assignment =~ ^ALGENTA_[A-Z0-9_]+=[^[:space:]]*$ ]] || {
      echo "bench_options: '$assignment' is not an ALGENTA_...=VALUE setting" >&2; exit 1; }
  done
  echo "$i: ${set_text:-(defaults)}" >>"$results/index.txt"
done
for ((round = 1; round <= ${ROUNDS:-2}; ++round)); do
  for ((i = 1; i <= $#; ++i)); do
    set_text=${!i}
    out="$results/$round-$i"
    mkdir -p "$out"
    # shellcheck disable=SC2086  # the set is split into its assignments on purpose
    env $set_text tests/gpu/bench_quick.sh "$out" >"$out/bench_quick.out" 2>&1
    echo "round $round, set $i (${set_text:-defaults}): exit $?, $(grep -o 'PASSED.*\|FAILED.*' "$out/verify.log" | head -1)"
  done
done
