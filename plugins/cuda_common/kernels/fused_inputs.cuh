// What a decode GEMM can do on the way in and out, so the kernels around it
// need not run: the RMS norm of its input rows, SwiGLU of a gate/up row, and
// the residual add of its result; and the hi / lo halves a prefill GEMM
// takes, which the norm and SwiGLU kernels can write themselves. Each gives the bits of the kernel it
// replaces (rmsnorm_residual_kernel, swiglu_kernel): the same operations in
// the same order, so a fused and an unfused step agree bit for bit
// (kernel_exactness compares them on the card).
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#ifndef ALGENTA_CUDA_PLANTED_BUG
#define ALGENTA_CUDA_PLANTED_BUG 0
#endif

namespace algenta::cuda {

// rmsnorm_residual_kernel's block width: its sum of squares is 256 strided
// partial sums added by a halving tree.
inline constexpr int kNormThreads = 256;

// silu(g) * u, as swiglu_kernel computes it.
__device__ __forceinline__ float swiglu_of(float g, float u) {
  return __fmul_rn(__fdiv_rn(g, __fadd_rn(1.0f, expf(-g))), u);
}

// hi[i] = T(v), lo[i] = T(v - hi[i]) (lo null: hi alone): a prefill GEMM's
// input halves, as split_hi_lo_kernel stores them.
template <typename T>
__device__ __forceinline__ void store_hi_lo(float v, int64_t i, T* __restrict__ hi,
                                            T* __restrict__ lo) {
  const T h = static_cast<T>(v);
  hi[i] = h;
  if (lo != nullptr) lo[i] = static_cast<T>(__fsub_rn(v, static_cast<float>(h)));
}

// The residual stream after adding a layer's output d (+ bias), as
// rmsnorm_residual_kernel adds it.
__device__ __forceinline__ float residual_add(float x, float d) {
  float v = __fadd_rn(x, d);
#if ALGENTA_CUDA_PLANTED_BUG == 6
  v = __bfloat162float(__float2bfloat16_rn(v));  // planted: the residual stream kept in bf16
#endif
  return v;
}

// 1 / sqrt(mean(row^2) + eps) for one row, computed by one warp in the
// order of rmsnorm_residual_kernel's kNormThreads threads: lane l holds the
// partial sums of threads l + 32 j (j < 8), each over columns thread,
// thread + 256, ... (a round of 256 columns at a time, all 8 of a lane's
// loads of a round, and of the next rounds, issued before their adds); the
// halving tree's strides 128, 64 and 32 pair a lane's own partials, strides
// 16 .. 1 pair lanes (lane i takes lane i + s). Every lane returns the scale.
__device__ __forceinline__ float warp_rms_scale(const float* __restrict__ row, int hidden,
                                                float eps) {
  const int lane = threadIdx.x % 32;
  constexpr int kPerLane = kNormThreads / 32;
  float partial[kPerLane] = {};
#pragma unroll 4
  for (int base = 0; base < hidden; base += kNormThreads) {
    float v[kPerLane];
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      const int c = base + lane + 32 * j;
      v[j] = c < hidden ? row[c] : 0.f;
    }
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      if (base + lane + 32 * j < hidden) partial[j] = __fadd_rn(partial[j], __fmul_rn(v[j], v[j]));
    }
  }
#pragma unroll
  for (int stride = kPerLane / 2; stride > 0; stride /= 2) {
#pragma unroll
    for (int j = 0; j < stride; ++j) partial[j] = __fadd_rn(partial[j], partial[j + stride]);
  }
  float total = partial[0];
#pragma unroll
  for (int s = 16; s > 0; s /= 2) total = __fadd_rn(total, __shfl_down_sync(0xffffffffu, total, s));
  total = __shfl_sync(0xffffffffu, total, 0);
  return 1.0f / sqrtf(total / static_cast<float>(hidden) + eps);
}

}  // namespace algenta::cuda
