#!/usr/bin/env bash
# One decode kernel looked at closely: Nsight Compute's full set (stall
# reasons, per-instruction samples of the SASS) for one launch of the
# kernels matching KERNEL in a decode step (graph nodes, after warm-up), on a
# real-shape checkpoint from a seed with a 256-token prompt. Writes the
# report, its details page and its SASS source page (CSV) to RESULTS_DIR.
#   KERNEL=attention_decode tests/gpu/profile_kernel.sh RESULTS_DIR [CONFIG.json]
#   (SKIP: matching launches skipped first, 64)
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: KERNEL=REGEX tests/gpu/profile_kernel.sh RESULTS_DIR [CONFIG.json]}
config=${2:-tests/fixtures/configs/Qwen3-0.6B/config.json}
kernel=${KERNEL:?KERNEL: a regular expression naming the kernel}
source tests/gpu/common.sh
name=$(basename "$(dirname "$config")")

"$python" tests/tools/make_gate_checkpoint.py --config "$config" --out "$work/hf" >"$results/make_$name.log" 2>&1
"$host" --state-file "$work/state.json" prepare "$work/hf" --out "$work/model" --dtype bf16 >>"$results/make_$name.log" 2>&1
report="$results/kernel_$name"
ncu --clock-control none --cache-control none --graph-profiling node --set full \
  -k "regex:$kernel" --launch-skip "${SKIP:-64}" --launch-count 1 -f -o "$report" \
  "$host" --state-file "$work/state.json" generate --model "$work/model" --plugin cuda_sm90a \
  --max-context 2048 --prompt-ids "$(seq -s, 1 256)" --max-tokens 16 >"$results/ncu_$name.log" 2>&1
echo "ncu exit $?"
ncu -i "$report.ncu-rep" --page details >"$report.details.txt" 2>&1
ncu -i "$report.ncu-rep" --page source --print-source sass --csv >"$report.sass.csv" 2>&1
grep -E "Duration|Registers Per|Achieved Occupancy|Stall|Warp Cycles Per Issued" "$report.details.txt" | head -40
rm -rf "$work"
