#!/usr/bin/env bash
# The oracle gate at a benchmarked config's real shape on the H200: a seeded
# synthetic checkpoint of CONFIG (tests/tools/make_gate_checkpoint.py, with a
# small trained tokenizer), its transformers bf16 reference, then `verify` of
# cuda_sm90a under POLICY at L = 256 with 64 tokens (the oracle runs on the
# host CPU). One config per invocation, to stay under 10 minutes with the
# 7B shape. Uses a carried build/.
#   tests/gpu/shape_gates.sh RESULTS_DIR CONFIG    (CONFIG: a fixture name under
#   tests/fixtures/configs, e.g. Llama-3.2-1B or Qwen2.5-7B-Instruct;
#   POLICY: exact or bf16)
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/shape_gates.sh RESULTS_DIR CONFIG}
config=${2:?usage: tests/gpu/shape_gates.sh RESULTS_DIR CONFIG}
policy=${POLICY:-exact}
source tests/gpu/common.sh
name="shape_${config}_$policy"

run_logged "make_$config" "$python" tests/tools/make_gate_checkpoint.py \
  --config "tests/fixtures/configs/$config/config.json" --out "$work/hf" --tokenizer
made=$?
run_logged "reference_$config" "$python" tests/tools/make_transformers_reference.py \
  --model "$work/hf" --out "$work/reference.json" --max-new-tokens 32
h prepare "$work/hf" --out "$work/model" --dtype bf16 >"$results/prepare_$config.log" 2>&1
run_logged "$name" env ALGENTA_ENGINE_LOG=1 "$host" --state-file "$state" verify \
  --model "$work/model" --plugin cuda_sm90a --lengths 256 --tokens 64 --precision "$policy" \
  --transformers-reference "$work/reference.json" --json "$results/$name.json"
rc=$?
verdicts=$(grep -E '^(oracle|bf16-oracle|repeat|concurrent|transformers) ' "$results/$name.log" |
  awk '{printf "%s%s %s %s", (NR > 1 ? ", " : ""), $1, $2, $3}')
printf '%-44s %s  %s\n' "$name" "$([[ $made == 0 && $rc == 0 ]] && echo PASS || echo FAIL)" \
  "verify exit $rc: $verdicts"
rm -rf "$work"
[[ $made == 0 && $rc == 0 ]]
