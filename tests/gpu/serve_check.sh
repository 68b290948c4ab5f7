#!/usr/bin/env bash
# `serve` on the H200, as a user runs it. Uses a carried build/ and writes
# logs and summary lines to RESULTS_DIR:
#   1. transformers fp32 greedy on the tiny serve checkpoint (made where CI
#      makes it and carried in build/serve-fixture/source): the reference CI's
#      cross-engine identity test compares the oracle behind serve with;
#   2. the Qwen3-0.6B-shape gate checkpoint with its trained tokenizer and
#      ChatML template, served on the engine selected for this GPU, and the
#      openai client (tests/gpu/serve_client.py) on its five chat prompts:
#      prompt ids, answer ids (verify's tie rule), stream = whole answer,
#      time to first token and decode rate as the client sees them;
#   3. sampled requests (tests/gpu/sampled_serve_check.py), drawn on the
#      card: each gets the same tokens alone and among 63 others;
#   4. SIGTERM: serve drains and exits 0;
#   5. the same sampled requests on a second server with --sampling host:
#      the host draws the tokens the card drew, with the same logprobs.
#   tests/gpu/serve_check.sh RESULTS_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/serve_check.sh RESULTS_DIR}
source tests/gpu/common.sh
tiny_source=${TINY_SOURCE:-$BUILD_DIR/serve-fixture/source}

# --- 1. the CI fixture: transformers fp32 on the tiny serve checkpoint ----------
run_logged reference_tiny "$python" tests/tools/make_transformers_reference.py \
  --model "$tiny_source" --dtype float32 --max-new-tokens 32 \
  --out "$results/transformers_chat_tiny.json"
record_summary transformers_reference_tiny $? "fp32, 5 chat prompts x 32 tokens"

# --- 2. the Qwen3-0.6B shape on the GPU engine ----------------------------------
hf="$work/qwen3_0p6b_hf"
model="$work/qwen3_0p6b"
run_logged make_checkpoint "$python" tests/tools/make_gate_checkpoint.py \
  --config tests/fixtures/configs/Qwen3-0.6B/config.json --out "$hf" --tokenizer
record_summary make_qwen3_0p6b $? "seeded weights, trained tokenizer, ChatML template"
run_logged prepare h prepare "$hf" --out "$model" --dtype bf16
record_summary prepare_qwen3_0p6b $? "bf16"
run_logged reference_qwen3_0p6b "$python" tests/tools/make_transformers_reference.py \
  --model "$hf" --dtype bfloat16 --max-new-tokens 64 --out "$work/reference_qwen3_0p6b.json"
record_summary transformers_reference_qwen3_0p6b $? "bf16, 5 chat prompts x 64 tokens"
# The engine's gates on the same checkpoint, with that chat reference.
run_logged verify_qwen3_0p6b h verify --model "$model" \
  --transformers-reference "$work/reference_qwen3_0p6b.json"
record_summary verify_qwen3_0p6b $? "$(grep -o 'PASSED.*\|FAILED.*' "$results/verify_qwen3_0p6b.log" | head -1)"

# Started directly (not through h) so that $! is the server itself.
"$host" --state-file "$state" serve --model "$model" --host 127.0.0.1 --port 0 \
  >"$work/serve.out" 2>"$results/serve.log" &
pid=$!
port=$(wait_for_port "$pid" "$work/serve.out")
[[ -n "$port" ]]; record_summary serve_listens $? "$(grep -o 'serving model.*' "$results/serve.log")"
if [[ -n "$port" ]]; then
  run_logged serve_client "$python" tests/gpu/serve_client.py \
    --base-url "http://127.0.0.1:$port/v1" --model qwen3_0p6b \
    --reference "$work/reference_qwen3_0p6b.json" --json "$results/serve_client.json"
  record_summary serve_client_five_chat_prompts $? "$(grep -c '^PASS' "$results/serve_client.log")/5 pass"
  curl -s "http://127.0.0.1:$port/metrics" >"$results/metrics.txt"
  # 3. Sampled requests drawn on the card: alone and among 63 others.
  vocab=$(vocab_size_of "$model/config.json")
  run_logged sampled_engine "$python" tests/gpu/sampled_serve_check.py --url "http://127.0.0.1:$port" \
    --model qwen3_0p6b --vocab "$vocab" --json "$results/sampled_engine.json"
  record_summary sampled_among_63_others $? "$(grep -o '^[A-Z]* [a-z_0-9]*: .*' "$results/sampled_engine.log")"
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid"
record_summary serve_sigterm_exit_0 $? "$(tail -1 "$results/serve.log")"

# --- 5. the same sampled requests drawn by the host from the engine's logits --
# (a second server after the first: each engine takes most of the card)
if [[ -s "$results/sampled_engine.json" ]]; then
  "$host" --state-file "$state" serve --model "$model" --sampling host --host 127.0.0.1 --port 0 \
    >"$work/serve_host.out" 2>"$results/serve_host_sampling.log" &
  pid=$!
  port=$(wait_for_port "$pid" "$work/serve_host.out")
  run_logged sampled_host "$python" tests/gpu/sampled_serve_check.py --url "http://127.0.0.1:${port:-1}" \
    --model qwen3_0p6b --vocab "$vocab" --against "$results/sampled_engine.json"
  record_summary sampled_engine_vs_host $? "$(grep -o '^[A-Z]* [a-z_0-9]*: .*' "$results/sampled_host.log")"
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"
fi
rm -rf "$work"
