// Decode GEMM with a batch-invariant reduction order:
//   y[m, n] = sum_k x[m, k] * W[n, k] (+ bias[n]),  fp32 accumulation, fp32 out.
// One warp per output column n. Lane l owns the 8-element slices starting at
// k = c * 256 + l * 8 (c = 0, 1, ...) and adds them into its partial sum in
// increasing k, one fused multiply-add each; then a fixed xor-shuffle tree
// sums the 32 partials. That order depends on K alone: not on M, not on which
// rows share a launch, not on whether 16-byte loads were possible (the scalar
// loads used for ragged K or unaligned pointers walk the very same order).
// No split-K, no atomics. The warp reads its W row once per group of
// kDecodeGemmRows rows of x, so at decode sizes (M <= 8) weights stream once.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace algenta::cuda {

inline constexpr int kDecodeGemmWarps = 4;                    // columns per block
inline constexpr int kDecodeGemmVec = 8;                      // elements per 16-byte load
inline constexpr int kDecodeGemmRows = 8;                     // rows of x per pass over a W row
inline constexpr int kDecodeGemmChunk = 32 * kDecodeGemmVec;  // k per warp step

// Reads the 8 elements at p[0..7] as floats: one 16-byte load when kVec,
// else element by element, stopping at `valid` (the ragged tail of a row).
template <typename Element, bool kVec>
__device__ __forceinline__ void load8(const Element* p, int valid, float (&out)[kDecodeGemmVec]) {
  if constexpr (kVec) {
    constexpr int kLoads = sizeof(Element) * kDecodeGemmVec / 16;  // 1 for 16-bit, 2 for fp32
    union {
      uint4 raw[kLoads];
      Element e[kDecodeGemmVec];
    } v;
#pragma unroll
    for (int i = 0; i < kLoads; ++i) v.raw[i] = reinterpret_cast<const uint4*>(p)[i];
#pragma unroll
    for (int j = 0; j < kDecodeGemmVec; ++j) out[j] = static_cast<float>(v.e[j]);
  } else {
#pragma unroll
    for (int j = 0; j < kDecodeGemmVec; ++j) out[j] = j < valid ? static_cast<float>(p[j]) : 0.f;
  }
}

// kVec: every row of x and W is 16-byte aligned (K % 8 == 0 and aligned bases).
// Both variants produce bit-identical results; kVec only loads faster.
// x may be the weight type or fp32 (activations kept at full precision).
template <typename XElement, typename Element, bool kVec>
__global__ void __launch_bounds__(kDecodeGemmWarps * 32)
    decode_gemm_kernel(const XElement* __restrict__ x, const Element* __restrict__ w,
                       const float* __restrict__ bias, float* __restrict__ y, int M, int N, int K) {
  const int lane = threadIdx.x % 32;
  const int n = blockIdx.x * kDecodeGemmWarps + threadIdx.x / 32;
  if (n >= N) return;  // whole warps leave together: n is uniform in a warp
  const Element* w_row = w + static_cast<int64_t>(n) * K;

  for (int m0 = 0; m0 < M; m0 += kDecodeGemmRows) {
    float acc[kDecodeGemmRows];
#pragma unroll
    for (int r = 0; r < kDecodeGemmRows; ++r) acc[r] = 0.f;

    for (int k = lane * kDecodeGemmVec; k < K; k += kDecodeGemmChunk) {
      const int valid = K - k;  // >= 8 except in the last, ragged slice
      float wf[kDecodeGemmVec];
      load8<Element, kVec>(w_row + k, valid, wf);
#pragma unroll
      for (int r = 0; r < kDecodeGemmRows; ++r) {
        if (m0 + r < M) {
          float xf[kDecodeGemmVec];
          load8<XElement, kVec>(x + static_cast<int64_t>(m0 + r) * K + k, valid, xf);
          // Skipped tail elements add nothing, exactly as if absent.
#pragma unroll
          for (int j = 0; j < kDecodeGemmVec; ++j)
            if (kVec || j < valid) acc[r] = __fmaf_rn(xf[j], wf[j], acc[r]);
        }
      }
    }

    // Fixed butterfly: a + b == b + a in fp32, so every lane ends with the
    // same bits, and the tree's shape depends on nothing but the warp width.
#pragma unroll
    for (int r = 0; r < kDecodeGemmRows; ++r) {
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        acc[r] = __fadd_rn(acc[r], __shfl_xor_sync(0xffffffffu, acc[r], offset));
    }

    if (lane == 0) {
      const float b = bias != nullptr ? bias[n] : 0.f;
#pragma unroll
      for (int r = 0; r < kDecodeGemmRows; ++r)
        if (m0 + r < M)
          y[static_cast<int64_t>(m0 + r) * N + n] = bias != nullptr ? __fadd_rn(acc[r], b) : acc[r];
    }
  }
}

// x [M, K] in XElement, w [N, K] in Element, row-major; bias [N] fp32 or
// null; y [M, N] fp32.
template <typename XElement, typename Element>
cudaError_t launch_decode_gemm(const XElement* x, const Element* w, const float* bias_or_null,
                               float* y, int M, int N, int K, cudaStream_t stream) {
  if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;
  const dim3 block(kDecodeGemmWarps * 32);
  const dim3 grid((N + kDecodeGemmWarps - 1) / kDecodeGemmWarps);
  const bool aligned = K % kDecodeGemmVec == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                       reinterpret_cast<uintptr_t>(w) % 16 == 0;
  if (aligned)
    decode_gemm_kernel<XElement, Element, true><<<grid, block, 0, stream>>>(x, w, bias_or_null, y, M, N, K);
  else
    decode_gemm_kernel<XElement, Element, false><<<grid, block, 0, stream>>>(x, w, bias_or_null, y, M, N, K);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
