#!/usr/bin/env bash
# A quick check of a kernel change on the H200, between full runs of
# tests/gpu/run.sh: the bit-for-bit kernel tests, verify of cuda_sm90a on two
# oracle fixtures (transformers bf16 references made there), and the decode
# and prefill timing of tests/gpu/profile_decode.sh (NCU=0).
#   tests/gpu/attention_quick.sh RESULTS_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/attention_quick.sh RESULTS_DIR}
source tests/gpu/common.sh
"$BUILD_DIR/bin/attention_exactness" "$results/attention_exactness.json" >"$results/attention_exactness.log" 2>&1
echo "attention_exactness exit $?: $(tail -1 "$results/attention_exactness.log")"
"$BUILD_DIR/bin/kernel_exactness" "$results/kernel_exactness.json" >"$results/kernel_exactness.log" 2>&1
echo "kernel_exactness exit $?: $(tail -1 "$results/kernel_exactness.log")"
for c in qwen3 llama; do
  "$host" --state-file "$work/state.json" prepare "tests/fixtures/oracle/$c" --out "$work/$c" --dtype bf16 >/dev/null 2>&1
  "$python" tests/tools/make_transformers_reference.py --model "tests/fixtures/oracle/$c" \
    --out "$work/ref_$c.json" >"$results/reference_$c.log" 2>&1
  "$host" --state-file "$work/state.json" verify --model "$work/$c" --plugin cuda_sm90a \
    --transformers-reference "$work/ref_$c.json" >"$results/verify_$c.log" 2>&1
  echo "verify cuda_sm90a $c exit $?: $(grep -o 'PASSED.*\|FAILED.*' "$results/verify_$c.log" | head -1)"
done
NCU=0 tests/gpu/profile_decode.sh "$results/timing" >/dev/null 2>&1
for f in "$results"/timing/timing_*.log; do echo "$(basename "$f"): $(tail -n 1 "$f")"; done
rm -rf "$work"
