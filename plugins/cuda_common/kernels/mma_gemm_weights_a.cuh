// Candidate decode GEMM (built with ALGENTA_CUDA_CANDIDATE_KERNELS=ON until
// tests/gpu/run.sh passes with it on the card): y = x w^T as mma_gemm.cuh,
// with the operands swapped.
//
// Operands: the weights are the mma's A (its 16 rows are 16 output
// columns n0 .. n0 + 15), the activations its B (its 8 columns are 8 rows
// of x). A decode step has one to a few rows, so the weights, which are
// what a decode GEMM streams, fill the tensor core, and the weights a lane
// loads are used for every x row without being loaded again.
//
// Work split: a block owns 16 output columns and its kWeightsAWarps warps
// share K (split-K inside the block). Warp w takes the 32-k steps
// w, w + kWeightsAWarps, ... in increasing order; in a step, lane (g, t)
// loads 8 consecutive weights (16 bytes) of rows n0 + g and n0 + g + 8 at
// k = step + 8 t, and the same 8 k of x row g of each 8-row tile; mma j
// (0..3) takes the pair k = step + 8 t + 2 j + {0, 1} in every lane, hi
// first, then lo. The warps' partial tiles are then added in warp order
// 0, 1, ... So the order is fixed by K alone. A row's accumulators see only
// its own x (a column of B), so its result does not depend on M or on the
// other rows. No atomics; ragged K and N are zero-padded, which adds exact
// zeros.
//
// Fused neighbours (decode steps): the x a lane loads can be RMS-normalised
// rows (XForm::normed: x * scale[m] * norm_weight, the scales computed per
// block by warp_rms_scale) or SwiGLU of a gate/up row (XForm::swiglu), and
// the result can be added to the residual stream (kResidual) instead of
// stored. Each gives the bits of the kernel it replaces (fused_inputs.cuh),
// so fusing changes no value, only the number of launches.
#pragma once

#include "fused_inputs.cuh"
#include "mma_gemm_ops.cuh"

namespace algenta::cuda {

inline constexpr int kWeightsAWarps = 8;     // warps per block, each a share of K
inline constexpr int kWeightsAStep = 32;     // k per warp step (4 lanes x 8)
inline constexpr int kWeightsAColumns = 16;  // output columns per block (the mma's m)
inline constexpr int kWeightsATileRows = 8;  // x rows per mma (its n)
inline constexpr int kMaxNormedRows = 16;    // XForm::normed: rows whose scales a block computes

enum class XForm { plain, normed, swiglu };

// The GEMM's x: row m starts at x + m * ld. normed: K = the norm's width;
// swiglu: a row holds K gate values, then K up values (ld >= 2 K).
struct GemmX {
  const float* x = nullptr;
  int ld = 0;
  const float* norm_weight = nullptr;
  float eps = 0.f;
};

// The GEMM's result: y[m, n] = acc, or with kResidual the residual stream
// y[m, n] = y[m, n] + (acc + bias[n]) (bias optional).
struct GemmY {
  float* y = nullptr;
  const float* bias = nullptr;
};

// 8 consecutive weights from p as 4 words, lower k in the lower half of a
// word (valid: how many exist; the rest are 0; valid <= 0 reads nothing).
template <typename Element, bool kVec>
__device__ __forceinline__ uint4 load_eight_weights(const Element* p, int valid) {
  if (kVec && valid >= 8) return *reinterpret_cast<const uint4*>(p);
  const Element zero = static_cast<Element>(0.f);
  uint32_t word[4];
#pragma unroll
  for (int j = 0; j < 4; ++j)
    word[j] = pack_pair(2 * j < valid ? p[2 * j] : zero, 2 * j + 1 < valid ? p[2 * j + 1] : zero);
  return make_uint4(word[0], word[1], word[2], word[3]);
}

// 8 consecutive fp32 values from p, as load_eight_weights.
template <bool kVec>
__device__ __forceinline__ void load_eight_floats(const float* p, int valid, float (&v)[8]) {
  if (kVec && valid >= 8) {
    const float4 first = reinterpret_cast<const float4*>(p)[0];
    const float4 second = reinterpret_cast<const float4*>(p)[1];
    v[0] = first.x, v[1] = first.y, v[2] = first.z, v[3] = first.w;
    v[4] = second.x, v[5] = second.y, v[6] = second.z, v[7] = second.w;
    return;
  }
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = j < valid ? p[j] : 0.f;
}

// The 8 x values of row pointer `row` (null: a row past M, zeros) at k.
template <XForm kForm, bool kVec>
__device__ __forceinline__ void load_eight_x(const GemmX& in, const float* row, float scale, int K,
                                             int k, int valid, float (&v)[8]) {
  const bool live = row != nullptr;
  load_eight_floats<kVec>(live ? row + k : in.x, live ? valid : 0, v);
  if constexpr (kForm == XForm::swiglu) {
    float up[8];
    load_eight_floats<kVec>(live ? row + K + k : in.x, live ? valid : 0, up);
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = swiglu_of(v[j], up[j]);  // swiglu(0, 0) = 0: padding stays 0
  } else if constexpr (kForm == XForm::normed) {
    float weight[8];
    load_eight_floats<kVec>(live ? in.norm_weight + k : in.norm_weight, live ? valid : 0, weight);
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = __fmul_rn(__fmul_rn(v[j], scale), weight[j]);
  }
}

__device__ __forceinline__ uint32_t word_of(const uint4& v, int j) {
  return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}

// One 32-k step of the warp: the weights of rows n0 + g (top) and n0 + g + 8
// (bottom) times the 8 x values of the lane's row; mma j = 0..3, hi then lo.
template <typename Element, bool kLo>
__device__ __forceinline__ void mma_step(float (&c)[4], const uint4& top, const uint4& bottom,
                                         const float (&xv)[8]) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    uint32_t hi, lo;
    split_pair<Element, kLo>(xv[2 * j], xv[2 * j + 1], hi, lo);
    mma_16x8x8<Element>(c, word_of(top, j), word_of(bottom, j), hi);
    if constexpr (kLo && !kPlantedDropsLo) mma_16x8x8<Element>(c, word_of(top, j), word_of(bottom, j), lo);
  }
}

// The warps' partial tiles added in warp order 0, 1, ... by warp 0, which
// writes output columns n0 .. n0 + 15 of x rows m0 .. m0 + 7 (those inside).
// Accumulator i of lane (g, t) is column n0 + g + 8 (i / 2), row m0 + 2 t + i % 2.
template <bool kResidual>
__device__ __forceinline__ void add_splits_and_store(float (&c)[4],
                                                     float (&partial)[kWeightsAWarps][32][4],
                                                     int m0, int n0, int M, int N, const GemmY& out) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
#pragma unroll
  for (int i = 0; i < 4; ++i) partial[warp][lane][i] = c[i];
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int s = 1; s < kWeightsAWarps; ++s) {
#pragma unroll
      for (int i = 0; i < 4; ++i) c[i] = __fadd_rn(c[i], partial[s][lane][i]);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int n = n0 + lane / 4 + 8 * (i / 2);
      const int m = m0 + 2 * (lane % 4) + i % 2;
      if (n >= N || m >= M) continue;
      float* target = out.y + static_cast<int64_t>(m) * N + n;
      if constexpr (kResidual) {
        *target = residual_add(*target, out.bias != nullptr ? __fadd_rn(c[i], out.bias[n]) : c[i]);
      } else {
        *target = c[i];
      }
    }
  }
  __syncthreads();  // partial is read before the next tile writes it
}

// kVec: rows of x and w start 16-byte aligned (K % 8 == 0, aligned bases);
// both variants give the same bits. kTiles 8-row tiles of x share each
// load of weights; kDepth of a warp's steps are loaded before any is
// multiplied, so a warp keeps kDepth x 1 KiB of weights in flight (a decode
// GEMM is a stream of weights: latency hidden by depth). Neither changes
// the order of any row's additions.
template <typename Element, bool kVec, int kTiles, int kDepth, bool kLo, XForm kForm,
          bool kResidual>
__global__ void __launch_bounds__(kWeightsAWarps * 32)
    mma_gemm_weights_a_kernel(const GemmX in, const Element* __restrict__ w, const GemmY out,
                              int M, int N, int K) {
  __shared__ float partial[kWeightsAWarps][32][4];
  __shared__ float row_scale[kForm == XForm::normed ? kMaxNormedRows : 1];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane / 4;  // weight rows n0 + g, n0 + g + 8; x row g of a tile
  const int t = lane % 4;  // which 8 k of a step
  const int n0 = blockIdx.x * kWeightsAColumns;
  const Element* w_top = n0 + g < N ? w + static_cast<int64_t>(n0 + g) * K : nullptr;
  const Element* w_bottom = n0 + g + 8 < N ? w + static_cast<int64_t>(n0 + g + 8) * K : nullptr;
  constexpr int kStride = kWeightsAStep * kWeightsAWarps;  // between a warp's steps

  if constexpr (kForm == XForm::normed) {
    // The weights do not wait for the scales: their first loads go to L2 now.
    for (int u = 0; u < kDepth; ++u) {
      const int k = warp * kWeightsAStep + u * kStride + 8 * t;
      if (k >= K) break;
      if (w_top != nullptr) asm volatile("prefetch.global.L2 [%0];" ::"l"(w_top + k));
      if (w_bottom != nullptr) asm volatile("prefetch.global.L2 [%0];" ::"l"(w_bottom + k));
    }
    for (int m = warp; m < M; m += kWeightsAWarps) {
      const float scale = warp_rms_scale(in.x + static_cast<int64_t>(m) * in.ld, K, in.eps);
      if (lane == 0) row_scale[m] = scale;
    }
    __syncthreads();
  }

  for (int m0 = 0; m0 < M; m0 += kWeightsATileRows * kTiles) {
    const float* x_row[kTiles];
    float scale[kTiles];
#pragma unroll
    for (int i = 0; i < kTiles; ++i) {
      const int m = m0 + kWeightsATileRows * i + g;
      x_row[i] = m < M ? in.x + static_cast<int64_t>(m) * in.ld : nullptr;
      scale[i] = kForm == XForm::normed && m < M ? row_scale[m] : 0.f;
    }
    float c[kTiles][4] = {};
    for (int k0 = warp * kWeightsAStep; k0 < K; k0 += kStride * kDepth) {
      uint4 top[kDepth], bottom[kDepth];
      float xv[kDepth][kTiles][8];
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        const int k = k0 + u * kStride + 8 * t;
        const int valid = K - k;  // <= 0 past the end: nothing is read
        // Rows past M or N read nothing and feed zeros.
        top[u] = load_eight_weights<Element, kVec>(w_top != nullptr ? w_top + k : w,
                                                   w_top != nullptr ? valid : 0);
        bottom[u] = load_eight_weights<Element, kVec>(w_bottom != nullptr ? w_bottom + k : w,
                                                      w_bottom != nullptr ? valid : 0);
#pragma unroll
        for (int i = 0; i < kTiles; ++i)
          load_eight_x<kForm, kVec>(in, x_row[i], scale[i], K, k, valid, xv[u][i]);
      }
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        if (k0 + u * kStride >= K) break;  // the same steps as K alone gives
#pragma unroll
        for (int i = 0; i < kTiles; ++i) mma_step<Element, kLo>(c[i], top[u], bottom[u], xv[u][i]);
      }
    }
#pragma unroll
    for (int i = 0; i < kTiles; ++i)
      add_splits_and_store<kResidual>(c[i], partial, m0 + kWeightsATileRows * i, n0, M, N, out);
  }
}

template <typename Element, bool kVec, bool kLo, XForm kForm, bool kResidual>
void launch_mma_gemm_weights_a_rows(const GemmX& in, const Element* w, const GemmY& out, int M,
                                    int N, int K, cudaStream_t stream) {
  const dim3 grid((N + kWeightsAColumns - 1) / kWeightsAColumns);
  const int threads = kWeightsAWarps * 32;
  // More rows per pass, fewer steps in flight: the registers stay near 64-96.
  if (M <= kWeightsATileRows)
    mma_gemm_weights_a_kernel<Element, kVec, 1, 4, kLo, kForm, kResidual>
        <<<grid, threads, 0, stream>>>(in, w, out, M, N, K);
  else if (M <= 2 * kWeightsATileRows)
    mma_gemm_weights_a_kernel<Element, kVec, 2, 2, kLo, kForm, kResidual>
        <<<grid, threads, 0, stream>>>(in, w, out, M, N, K);
  else if constexpr (kForm != XForm::normed)  // normed rows stop at kMaxNormedRows
    mma_gemm_weights_a_kernel<Element, kVec, 4, 1, kLo, kForm, kResidual>
        <<<grid, threads, 0, stream>>>(in, w, out, M, N, K);
}

// in.x rows of in.ld floats; 16-byte loads when every row and w's rows
// start 16-byte aligned. normed needs M <= kMaxNormedRows (the caller
// checks).
template <typename Element, bool kLo, XForm kForm, bool kResidual>
void launch_mma_gemm_weights_a_fused(const GemmX& in, const Element* w, const GemmY& out, int M,
                                     int N, int K, cudaStream_t stream) {
  const bool aligned = K % 8 == 0 && in.ld % 4 == 0 &&
                       reinterpret_cast<uintptr_t>(in.x) % 16 == 0 &&
                       reinterpret_cast<uintptr_t>(in.norm_weight) % 16 == 0 &&
                       reinterpret_cast<uintptr_t>(w) % 16 == 0;
  if (aligned)
    launch_mma_gemm_weights_a_rows<Element, true, kLo, kForm, kResidual>(in, w, out, M, N, K, stream);
  else
    launch_mma_gemm_weights_a_rows<Element, false, kLo, kForm, kResidual>(in, w, out, M, N, K, stream);
}

template <typename Element, bool kLo>
void launch_mma_gemm_weights_a(const float* x, const Element* w, float* y, int M, int N, int K,
                             cudaStream_t stream) {
  launch_mma_gemm_weights_a_fused<Element, kLo, XForm::plain, false>(GemmX{x, K, nullptr, 0.f}, w,
                                                                     GemmY{y, nullptr}, M, N, K,
                                                                     stream);
}

}  // namespace algenta::cuda
