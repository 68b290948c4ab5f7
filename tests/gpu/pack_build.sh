#!/usr/bin/env bash
# Copies from a build what the GPU scripts (run.sh, bench_quick.sh,
# shape_gates.sh, host_tables_quick.sh, profile_decode.sh) use, into a
# folder small enough to carry to a card machine that has the CUDA driver
# and libraries but no compiler: the host and signing tool, the kernel
# checks, the vendor bundle, the mutants, the dev signing key and the host's
# configuration. Run there with BUILD_DIR=<the folder>.
#   tests/gpu/pack_build.sh BUILD_DIR OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tests/gpu/pack_build.sh BUILD_DIR OUT_DIR}
out=${2:?usage: tests/gpu/pack_build.sh BUILD_DIR OUT_DIR}

[[ -x "$build/bin/algenta-host" ]] || { echo "pack_build: $build/bin/algenta-host is missing: build first" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/bin"
for tool in algenta-host algenta-sign algenta-stream-bandwidth kernel_exactness attention_exactness \
  fused_gemm_exactness prefill_gemm_exactness sampler_exactness engine_checks decode_gemm_timing \
  argmax_exactness; do
  if [[ -x "$build/bin/$tool" ]]; then
    cp -p "$build/bin/$tool" "$out/bin/"
  else
    echo "pack_build: $build/bin/$tool not built; the scripts that need it will say so" >&2
  fi
done
# The plugins (vendor bundle and mutants) and what the host reads at start.
for folder in lib etc dev-signing test-plugins release-config serve-fixture; do
  [[ -e "$build/$folder" ]] && cp -rp "$build/$folder" "$out/"
done
# What the binaries were configured with, so a reader can tell the builds apart.
grep -E '^(ALGENTA_[A-Z_]+|CMAKE_BUILD_TYPE):' "$build/CMakeCache.txt" >"$out/build_options.txt" || true
du -sh "$out"
