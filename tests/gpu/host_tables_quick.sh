#!/usr/bin/env bash
# The CUDA engine with the host's KV block tables on the H200, between full
# runs of tests/gpu/run.sh: engine_checks on the qwen3 oracle fixture (every
# check; those of the host's tables are host_tables_*, prefix_hit_* and
# refused_*, tests/gpu/host_block_tables.hpp), then serve's prefix-cache
# test on cuda_sm90a (tests/gpu/prefix_cache_check.sh). Uses a carried build/.
#   tests/gpu/host_tables_quick.sh RESULTS_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
results=${1:?usage: tests/gpu/host_tables_quick.sh RESULTS_DIR}
source tests/gpu/common.sh
model="$work/qwen3"
h prepare tests/fixtures/oracle/qwen3 --out "$model" --dtype bf16 >"$results/prepare.log" 2>&1
run_logged engine_checks "$BUILD_DIR/bin/engine_checks" \
  "$BUILD_DIR/lib/algenta/plugins/vendor/libalgenta_cuda_sm90a.so" "$model"
checks_rc=$?
grep -E '^(host_tables|prefix_hit|refused)_' "$results/engine_checks.log"
echo "engine_checks exit $checks_rc: $(grep -c ' PASS ' "$results/engine_checks.log") passed," \
  "$(grep -c ' FAIL ' "$results/engine_checks.log") failed"
tests/gpu/prefix_cache_check.sh "$results/prefix_cache" cuda_sm90a
prefix_rc=$?
rm -rf "$work"
[[ $checks_rc == 0 && $prefix_rc == 0 ]]
