// Tensor-core GEMM for the decode path and for logits rows:
//   y[m, n] = sum_k x[m, k] * w[n, k],  x fp32, w Element, y fp32.
// mma.sync m16n8k16 (f16 on sm_75, bf16 from sm_80) with fp32 accumulators.
// The fp32 activations enter as two Element halves, hi = Element(x) and
// lo = Element(x - hi), each multiplied in turn, so x keeps about twice
// Element's mantissa (the exact policy); the bf16 policy sends hi alone.
//
// The kernel is mma_gemm_stream.cuh (weights streamed as the mma's A
// operand, the norm, SwiGLU and the residual add fusable around it), or
// for up to 8 rows, where switched on, mma_gemm_ring.cuh with its bits
// (mma_gemm_decode.cuh chooses).
// mma_gemm_x_a.cuh, the kernel it replaced, stays for
// tests/gpu/decode_gemm_timing to measure against. Each fixes its reduction
// order by K alone, so a row's bits do not depend on M; the orders differ,
// so their bits differ.
#pragma once

#include "mma_gemm_decode.cuh"

namespace algenta::cuda {

// x [M, K] fp32, w [N, K] Element, row-major; y [M, N] fp32. lo_halves:
// the exact policy (x as hi + lo halves); false: the bf16 policy (x rounded
// to Element once, the hi half alone).
template <typename Element>
cudaError_t launch_mma_gemm(const float* x, const Element* w, float* y, int M, int N, int K,
                            bool lo_halves, cudaStream_t stream) {
  if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;
  if (lo_halves)
    launch_decode_gemm<Element, true>(x, w, y, M, N, K, stream);
  else
    launch_decode_gemm<Element, false>(x, w, y, M, N, K, stream);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
