#!/usr/bin/env bash
# serve's prefix cache on the card: tests/integration/serve/test_prefix_cache.py
# with serve on a CUDA engine (ALGENTA_SERVE_PLUGIN), which takes the host's
# KV block tables: 16 requests sharing a 256-token system prompt compute it
# once, one after another and concurrently, and each gets exactly the
# tokens and logprobs of a server with --prefix-cache off. Uses a carried
# build/ and a Python with tests/requirements.txt (PYTHON=.venv/bin/python
# when carried); writes prefix_cache.log and summary.txt to RESULTS_DIR.
#   tests/gpu/prefix_cache_check.sh RESULTS_DIR [PLUGIN]   (PLUGIN: cuda_sm90a)
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/prefix_cache_check.sh RESULTS_DIR [PLUGIN]}
plugin=${2:-cuda_sm90a}
source tests/gpu/common.sh

if ! "$python" -c "import numpy, openai, prometheus_client, pytest, safetensors, tokenizers" \
    2>"$results/prefix_cache.log"; then
  record_summary "prefix_cache_$plugin" 1 "$python lacks tests/requirements.txt (see prefix_cache.log)"
  exit 1
fi
run_logged prefix_cache env ALGENTA_HOST="$(readlink -f "$host")" ALGENTA_SERVE_PLUGIN="$plugin" \
  ALGENTA_FIXTURES="$PWD/tests/fixtures" \
  "$python" -m pytest -q -p no:cacheprovider tests/integration/serve/test_prefix_cache.py
rc=$?
record_summary "prefix_cache_$plugin" $rc "$(grep -E '[0-9]+ (passed|failed)' "$results/prefix_cache.log" | tail -1)"
rm -rf "$work"
exit $rc
