// The certified decode GEMM: y = x w^T as mma_gemm.cuh, the activations as
// the mma's A (16 rows of x), the weights its B (8 output columns).
//
// Work split: a block owns 8 output columns and its kMmaGemmSplits warps
// share K (split-K inside the block): a decode GEMM of N = 1024 then still
// fills every SM, and each warp streams its own weights.
//
// Reduction order, fixed by K alone: K is cut into chunks of 64 from k = 0;
// warp s takes chunks s, s + kMmaGemmSplits, ... in increasing order. Inside
// a chunk, lane quad t holds k = chunk + 16 t .. +15 of its W row (two
// 16-byte loads) and of its two x rows; mma step j (0..7) multiplies the
// pairs k = chunk + 16 t + 2 j + {0,1} of all four quads, hi first, then
// lo. The warps' partial tiles are then added in warp order 0, 1, ... Rows
// go through the same steps in m-tiles of 16 whatever M is; a row's
// accumulators see only its own x, so its result does not depend on M or on
// the other rows. No atomics; ragged K and N are zero-padded, which adds
// exact zeros.
#pragma once

#include "mma_gemm_ops.cuh"

namespace algenta::cuda {

inline constexpr int kMmaGemmSplits = 8;    // warps per block, each a share of K
inline constexpr int kMmaGemmChunk = 64;    // k per load step (4 quads x 16)
inline constexpr int kMmaGemmTileRows = 16; // rows per m-tile

// One 64-k chunk of the warp's 16 x 8 tile: mma steps s = 0..7, hi then lo.
template <typename Element, bool kLo>
__device__ __forceinline__ void mma_chunk(float (&c)[4], const Sixteen<Element>& wv,
                                          const float* top, const float* bottom) {
#pragma unroll
  for (int s = 0; s < 8; ++s) {
    const uint32_t b = pack_pair(wv.v[2 * s], wv.v[2 * s + 1]);
    uint32_t top_hi, top_lo, bottom_hi, bottom_lo;
    split_pair<Element, kLo>(top[2 * s], top[2 * s + 1], top_hi, top_lo);
    split_pair<Element, kLo>(bottom[2 * s], bottom[2 * s + 1], bottom_hi, bottom_lo);
    mma_16x8x8<Element>(c, top_hi, bottom_hi, b);
    if constexpr (kLo && !kPlantedDropsLo) mma_16x8x8<Element>(c, top_lo, bottom_lo, b);
  }
}

// kVec: rows of x and w start 16-byte aligned (K % 8 == 0, aligned bases);
// both variants give the same bits.
// kBottom: some m-tile has rows in its lower half (M > 8). Without them the
// lower half is zeros, as the loads would give, so both variants give the
// same bits for the rows they share.
// kDepth of a warp's chunks are loaded before any is multiplied, so a warp
// keeps kDepth x 512 bytes of weights in flight (a decode GEMM is a stream
// of weights: latency hidden by depth, not by more rows). The
// multiplication order is the same for every depth.
template <typename Element, bool kVec, bool kBottom, int kDepth, bool kLo>
__global__ void __launch_bounds__(kMmaGemmSplits * 32)
    mma_gemm_kernel(const float* __restrict__ x, const Element* __restrict__ w,
                    float* __restrict__ y, int M, int N, int K) {
  __shared__ float partial[kMmaGemmSplits][32][4];
  const int lane = threadIdx.x % 32;
  const int split = threadIdx.x / 32;
  const int g = lane / 4;  // row of A / column of B this lane feeds
  const int t = lane % 4;  // its quad: which 16 k of a chunk
  const int n0 = blockIdx.x * 8;
  const Element* w_row = n0 + g < N ? w + static_cast<int64_t>(n0 + g) * K : nullptr;
  constexpr int kStride = kMmaGemmChunk * kMmaGemmSplits;  // between a warp's chunks

  for (int m0 = 0; m0 < M; m0 += kMmaGemmTileRows) {
    const float* x_top = m0 + g < M ? x + static_cast<int64_t>(m0 + g) * K : nullptr;
    const float* x_bottom = m0 + g + 8 < M ? x + static_cast<int64_t>(m0 + g + 8) * K : nullptr;
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = split * kMmaGemmChunk; k0 < K; k0 += kStride * kDepth) {
      Sixteen<Element> wv[kDepth];
      Sixteen<float> top_x[kDepth];
      Sixteen<float> bottom_x[kBottom ? kDepth : 1];
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        const int k = k0 + u * kStride + 16 * t;
        const int valid = K - k;  // <= 0 past the end: nothing is read
        // Rows past M or N read nothing and feed zeros.
        load16<Element, kVec>(w_row != nullptr ? w_row + k : w, w_row != nullptr ? valid : 0, wv[u]);
        load16<float, kVec>(x_top != nullptr ? x_top + k : x, x_top != nullptr ? valid : 0, top_x[u]);
        if constexpr (kBottom) {
          load16<float, kVec>(x_bottom != nullptr ? x_bottom + k : x,
                              x_bottom != nullptr ? valid : 0, bottom_x[u]);
        }
      }
      if constexpr (!kBottom) {
#pragma unroll
        for (int j = 0; j < 16; ++j) bottom_x[0].v[j] = 0.f;
      }
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        if (k0 + u * kStride >= K) break;  // the same chunks as K alone gives
        mma_chunk<Element, kLo>(c, wv[u], top_x[u].v, bottom_x[kBottom ? u : 0].v);
      }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) partial[split][lane][i] = c[i];
    __syncthreads();
    if (split == 0) {
#pragma unroll
      for (int s = 1; s < kMmaGemmSplits; ++s) {
#pragma unroll
        for (int i = 0; i < 4; ++i) c[i] = __fadd_rn(c[i], partial[s][lane][i]);
      }
      const int column = n0 + 2 * t;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = m0 + g + 8 * half;
        if (row >= M) continue;
        float* out = y + static_cast<int64_t>(row) * N;
        if (column < N) out[column] = c[2 * half];
        if (column + 1 < N) out[column + 1] = c[2 * half + 1];
      }
    }
    __syncthreads();  // partial is read before the next m-tile writes it
  }
}

template <typename Element, bool kVec, bool kLo>
void launch_mma_gemm_x_a_rows(const float* x, const Element* w, float* y, int M, int N, int K,
                              cudaStream_t stream) {
  const dim3 grid((N + 7) / 8);
  const int threads = kMmaGemmSplits * 32;
  if (M > 8) {
    mma_gemm_kernel<Element, kVec, true, 2, kLo><<<grid, threads, 0, stream>>>(x, w, y, M, N, K);
  } else {
    mma_gemm_kernel<Element, kVec, false, 4, kLo><<<grid, threads, 0, stream>>>(x, w, y, M, N, K);
  }
}

template <typename Element, bool kLo>
void launch_mma_gemm_x_a(const float* x, const Element* w, float* y, int M, int N, int K,
                         cudaStream_t stream) {
  if (gemm_rows_aligned(x, w, K))
    launch_mma_gemm_x_a_rows<Element, true, kLo>(x, w, y, M, N, K, stream);
  else
    launch_mma_gemm_x_a_rows<Element, false, kLo>(x, w, y, M, N, K, stream);
}

}  // namespace algenta::cuda
