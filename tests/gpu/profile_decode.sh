#!/usr/bin/env bash
# Profiles the CUDA engine's decode step and prefill on the H200 with Nsight
# Compute (clocks and caches left alone): a real-shape checkpoint from a seed, a
# 256-token prompt, then per-kernel time, DRAM bytes and achieved bandwidth
# of a few decode steps and of one prefill (PREFILL_TOKENS, 1024), as CSV.
#   tests/gpu/profile_decode.sh RESULTS_DIR [CONFIG.json]    (NCU=0: timing only;
#   DECODE_LAUNCHES / PREFILL_LAUNCHES: kernels profiled, 900 / 400;
#   DECODE_SKIP: launches before the profiled decode steps, 2000)
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/profile_decode.sh RESULTS_DIR [CONFIG.json]}
config=${2:-tests/fixtures/configs/Qwen3-0.6B/config.json}
source tests/gpu/common.sh
name=$(basename "$(dirname "$config")")

"$python" tests/tools/make_gate_checkpoint.py --config "$config" --out "$work/hf" >"$results/make_$name.log" 2>&1
"$host" --state-file "$work/state.json" prepare "$work/hf" --out "$work/model" --dtype bf16 >>"$results/make_$name.log" 2>&1

prompt=$(seq -s, 1 256)
prefill_tokens=${PREFILL_TOKENS:-1024}
long_prompt=$(seq -s, 1 "$prefill_tokens")
run() { "$host" --state-file "$work/state.json" generate --model "$work/model" --plugin cuda_sm90a --max-context 2048 "$@"; }

# Wall-clock figures first (no profiler attached).
run --prompt-ids "$prompt" --max-tokens 64 >/dev/null 2>"$results/timing_${name}_64.log"
run --prompt-ids "$prompt" --max-tokens 512 >/dev/null 2>"$results/timing_${name}_512.log"
run --prompt-ids "$long_prompt" --max-tokens 1 >/dev/null 2>"$results/timing_${name}_prefill${prefill_tokens}.log"

# NCU=0: the wall-clock figures only.
[[ "${NCU:-1}" == 0 ]] && { echo "profile done (timing only)"; exit 0; }
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
# Decode: graph launches of the decode steps after warm-up (prefill and
# graph capture are skipped: DECODE_SKIP, at least the prefill's launches
# and a few steps' (a step's kernel count is in the engine log).
ncu --clock-control none --cache-control none --graph-profiling node --metrics "$metrics" --csv --page raw \
  --launch-skip "${DECODE_SKIP:-2000}" --launch-count "${DECODE_LAUNCHES:-900}" \
  "$host" --state-file "$work/state.json" generate --model "$work/model" --plugin cuda_sm90a \
  --max-context 2048 --prompt-ids "$prompt" --max-tokens 16 >"$results/ncu_decode_$name.csv" 2>"$results/ncu_decode_$name.log"
ncu --clock-control none --cache-control none --metrics "$metrics" --csv --page raw --launch-count "${PREFILL_LAUNCHES:-400}" \
  "$host" --state-file "$work/state.json" generate --model "$work/model" --plugin cuda_sm90a \
  --max-context 2048 --prompt-ids "$long_prompt" --max-tokens 1 >"$results/ncu_prefill_$name.csv" 2>"$results/ncu_prefill_$name.log"
for part in decode prefill; do
  "$python" tests/tools/summarize_ncu.py "$results/ncu_${part}_$name.csv" >"$results/summary_${part}_$name.txt"
  echo "== $part ($name)"; cat "$results/summary_${part}_$name.txt"
done
echo "profile done"
