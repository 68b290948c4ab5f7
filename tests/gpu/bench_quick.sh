#!/usr/bin/env bash
# A first `bench` on the H200: verify cuda_sm90a on a fixture (bench runs
# only verified builds), then Qwen3-0.6B and Llama-3.2-1B shapes from
# synthetic weights, exact policy (POLICY=bf16: the bf16 policy).
#   tests/gpu/bench_quick.sh RESULTS_DIR     (CONFIGS: the shapes, by fixture name;
#   SHAPES: the prompt lengths, 256,1024; POLICY: exact or bf16)
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/bench_quick.sh RESULTS_DIR}
source tests/gpu/common.sh
h prepare tests/fixtures/oracle/qwen3 --out "$work/qwen3" --dtype bf16 >/dev/null 2>&1
"${PYTHON:-python3}" tests/tools/make_transformers_reference.py --model tests/fixtures/oracle/qwen3 \
  --out "$work/ref.json" >"$results/reference.log" 2>&1
policy=${POLICY:-exact}
h verify --model "$work/qwen3" --plugin cuda_sm90a --lengths 256 --tokens 32 --precision "$policy" \
  --transformers-reference "$work/ref.json" >"$results/verify.log" 2>&1
echo "verify exit $?: $(grep -o 'PASSED.*\|FAILED.*' "$results/verify.log" | head -1)"
for config in ${CONFIGS:-Qwen3-0.6B Llama-3.2-1B}; do
  h bench --plugin cuda_sm90a --synthetic-weights 1 --config "tests/fixtures/configs/$config/config.json" \
    --shapes "${SHAPES:-256,1024}" --gen 64 --runs 3 --precision "$policy" --json "$results/bench_${config}_$policy.json" >"$results/bench_${config}_$policy.log" 2>&1
  echo "bench $config $policy exit $?"; tail -12 "$results/bench_${config}_$policy.log"
done
rm -rf "$work"
