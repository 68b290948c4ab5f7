#!/usr/bin/env bash
# Continuous batching on the card, at a real shape from synthetic weights:
#   1. verify cuda_sm90a on the qwen3 fixture (bench needs its record);
#   2. `bench --concurrency` (decode-only aggregate throughput, 256-token
#      prompts, 256 tokens each);
#   3. `serve --synthetic-weights` and scripts/loadgen against it: closed
#      loops (each answer checked against the same request run alone), then
#      open loops at rates around the one a closed loop of 50 clients
#      sustains (interpolated between the closed loops of 32 and 64), and
#      the highest of those rates whose time to first token p95 is under 1 s;
#   4. SIGTERM: serve drains and exits 0.
# Writes summary.txt, the bench and loadgen JSON and the logs to RESULTS_DIR.
#   tests/gpu/batching_check.sh RESULTS_DIR
# CONFIG: fixture config name (Qwen3-0.6B); POLICY: exact or bf16;
# CLOSED: "clients:seconds ..." ("1:30 8:30 16:30 32:60 64:60");
# OPEN_FACTORS: open-loop rates as fractions of the C = 50 rate ("0.5 0.8 1.0 1.2");
# OPEN_SECONDS: 30; CONCURRENCY: bench's list (1,8,32,64); CONFIG_FILE: a
# config.json path instead of CONFIG; PLUGIN: cuda_sm90a (cpu_oracle with a
# tiny CONFIG_FILE tries the script on a machine without a GPU).
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/batching_check.sh RESULTS_DIR}
source tests/gpu/common.sh
config=${CONFIG_FILE:-tests/fixtures/configs/${CONFIG:-Qwen3-0.6B}/config.json}
config_name=$(basename "$(dirname "$config")")
plugin=${PLUGIN:-cuda_sm90a}
plugin_flags=(--plugin "$plugin")
[[ $plugin == cpu_oracle ]] && plugin_flags+=(--allow-oracle)
policy=${POLICY:-exact}
closed_runs=${CLOSED:-1:30 8:30 16:30 32:60 64:60}
open_factors=${OPEN_FACTORS:-0.5 0.8 1.0 1.2}
open_seconds=${OPEN_SECONDS:-30}
tag="${config_name}_$policy"

# --- 1. a verify record for this plugin and policy ------------------------------
h prepare tests/fixtures/oracle/qwen3 --out "$work/qwen3" --dtype bf16 >/dev/null 2>&1
run_logged reference "$python" tests/tools/make_transformers_reference.py --model tests/fixtures/oracle/qwen3 \
  --out "$work/reference.json"
run_logged verify h verify --model "$work/qwen3" "${plugin_flags[@]}" --lengths 256 --tokens 32 \
  --precision "$policy" --transformers-reference "$work/reference.json"
record_summary "verify_$policy" $? "$(grep -o 'PASSED.*\|FAILED.*' "$results/verify.log" | head -1)"

# --- 2. decode-only aggregate throughput ----------------------------------------
run_logged "bench_$tag" h bench "${plugin_flags[@]}" --synthetic-weights 1 --config "$config" \
  --shapes 256 --gen 256 --runs 3 --precision "$policy" --concurrency "${CONCURRENCY:-1,8,32,64}" \
  --json "$results/bench_$tag.json"
record_summary "bench_concurrency_$tag" $? "L G C TTFT prefill decode: $(grep -E '^[0-9]+ +[0-9]+ +[0-9]+ ' "$results/bench_$tag.log" |
  awk '{print $1, $2, $3, $4, $6, $8}' | paste -sd ';')"

# --- 3. serve and the load ------------------------------------------------------
vocab=$(vocab_size_of "$config")
"$host" --state-file "$state" serve --synthetic-weights 1 --config "$config" "${plugin_flags[@]}" \
  --precision "$policy" --served-model-name synthetic --max-running 64 --max-queue 1024 \
  --host 127.0.0.1 --port 0 >"$work/serve.out" 2>"$results/serve_$tag.log" &
pid=$!
port=$(wait_for_port "$pid" "$work/serve.out")
[[ -n "$port" ]]; record_summary "serve_listens_$tag" $? "$(grep -o 'serving model.*' "$results/serve_$tag.log")"
load() {  # name, loadgen arguments...
  local name=$1; shift
  run_logged "$name" "$python" scripts/loadgen --url "http://127.0.0.1:$port" --model synthetic \
    --vocab "$vocab" --max-tokens 256 --json "$results/$name.json" "$@"
  record_summary "$name" $? "$(grep -E '^(throughput|time to first|inter-token|errors|incomplete|alone)' \
    "$results/$name.log" | paste -sd ';')"
}
if [[ -n "$port" ]]; then
  for run in $closed_runs; do
    load "closed_${run%%:*}_$tag" --closed "${run%%:*}" --duration "${run##*:}"
  done
  # The C = 50 rate, between the closed loops of 32 and 64 clients.
  c32="$results/closed_32_$tag.json"; c64="$results/closed_64_$tag.json"
  if [[ -f $c32 && -f $c64 ]]; then
    rate50=$("$python" -c "import json, sys
a, b = (json.load(open(f))['requests_per_s'] for f in sys.argv[1:3])
print(f'{a + (b - a) * 18 / 32:.3f}')" "$c32" "$c64")
    echo "rate equivalent to 50 clients: $rate50 requests/s" | tee -a "$results/summary.txt"
    open_reports=()
    for factor in $open_factors; do
      rate=$("$python" -c "print(f'{$rate50 * $factor:.3f}')")
      load "open_${rate}_$tag" --open "$rate" --duration "$open_seconds" --no-alone-check
      open_reports+=("$results/open_${rate}_$tag.json")
    done
    "$python" -c "import json, os, sys
runs = [json.load(open(f)) for f in sys.argv[1:] if os.path.exists(f)]
kept = [(j['mode']['open_rate'], j['ttft_s']['95']) for j in runs
        if j['ttft_s']['95'] is not None and j['ttft_s']['95'] < 1.0 and not j['errors'] and not j['incomplete']]
print('highest open-loop rate with TTFT p95 under 1 s: ' +
      (f'{max(kept)[0]} requests/s (p95 {max(kept)[1] * 1e3:.0f} ms)' if kept else 'none of those run'))" \
      "${open_reports[@]}" | tee -a "$results/summary.txt"
  fi
  curl -s "http://127.0.0.1:$port/metrics" >"$results/metrics_$tag.txt"
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid"
record_summary "serve_sigterm_exit_0_$tag" $? "$(tail -1 "$results/serve_$tag.log")"
rm -rf "$work"
