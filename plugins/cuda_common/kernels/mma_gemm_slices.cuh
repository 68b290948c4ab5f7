// A batched form of the stream GEMM (mma_gemm_stream.cuh) meant to give its
// bits: y = x w^T for up to kSliceMaxRows rows of x.
//
// The stream kernel deals K's 64-k chunks to a block's kStreamWarps warps
// (warp s: chunks s, s + kStreamWarps, ...), each warp sums its chunks' mma
// steps, and the warps' partial tiles are added in warp order. Past a few
// rows it is bound by x's reads: every block reads all of x for its 8 or 16
// columns. Here the same deal is made across blocks: slice s (blockIdx.y)
// takes chunks s, s + kSliceCount, ..., a block computes one slice for
// kSliceWarps tiles of 16 columns (a warp a tile), and x's chunk is read and
// split into hi / lo halves once per block, into shared memory, for all of
// its tiles. Each warp runs the stream kernel's mma steps on the same
// operands in the same order (quad t holds k = chunk + 16 t .. + 15; step j
// multiplies the pairs 8 t + 2 j and 8 t + 2 j + 1 of the chunk, hi first,
// then lo) and writes its partial sums; mma_gemm_slices_sum_kernel adds the
// kSliceCount partials in slice order, as the stream kernel adds its warps'.
// x is then read from L2 once per 128 columns, not once per 8 or 16.
//
// Not used by the engine yet: tests/gpu/decode_gemm_timing times it against
// the stream kernel and compares their bits, shape by shape.
#pragma once

#include <cstdint>

#include "mma_gemm_stream.cuh"

namespace algenta::cuda {

inline constexpr int kSliceCount = kStreamWarps;  // the stream kernel's deal of K
inline constexpr int kSliceWarps = 8;             // 16-column tiles a block
inline constexpr int kSliceColumns = 16 * kSliceWarps;
inline constexpr int kSliceMaxRows = 64;

// partial [kSliceCount, M, N]: slice s's sums for each row and column.
template <typename Element, bool kVec, bool kLo>
__global__ void __launch_bounds__(kSliceWarps * 32)
    mma_gemm_slice_kernel(const float* __restrict__ x, const Element* __restrict__ w,
                          float* __restrict__ partial, int M, int N, int K) {
  constexpr int kPairs = kStreamChunk / 2;  // k pairs of a chunk
  constexpr int kRowWords = kPairs + 4;     // padded: a quad's 16-byte reads miss each other's banks
  __shared__ __align__(16) uint32_t staged_hi[kSliceMaxRows][kRowWords];
  __shared__ __align__(16) uint32_t staged_lo[kLo ? kSliceMaxRows : 1][kRowWords];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane / 4;  // A's rows g, g + 8 (columns of w); B's column g (a row of x)
  const int t = lane % 4;  // the quad: which 16 k of a chunk
  const int slice = blockIdx.y;
  const int n0 = (blockIdx.x * kSliceWarps + warp) * 16;
  const int groups = (M + kStreamGroup - 1) / kStreamGroup;
  const int staged_rows = groups * kStreamGroup;
  const Element* w_top = n0 + g < N ? w + static_cast<int64_t>(n0 + g) * K : nullptr;
  const Element* w_bottom = n0 + g + 8 < N ? w + static_cast<int64_t>(n0 + g + 8) * K : nullptr;
  const bool x_pairs = K % 2 == 0 && reinterpret_cast<uintptr_t>(x) % 8 == 0;
  float c[kSliceMaxRows / kStreamGroup][4] = {};
  const int chunks = (K + kStreamChunk - 1) / kStreamChunk;
  for (int q = slice; q < chunks; q += kSliceCount) {
    const int k0 = q * kStreamChunk;
    const int k = k0 + 16 * t;
    Sixteen<Element> top, bottom;  // in flight while x is staged
    load16<Element, kVec>(w_top != nullptr ? w_top + k : w, w_top != nullptr ? K - k : 0, top);
    load16<Element, kVec>(w_bottom != nullptr ? w_bottom + k : w, w_bottom != nullptr ? K - k : 0,
                          bottom);
    __syncthreads();  // the previous chunk's halves have been read
    for (int i = threadIdx.x; i < staged_rows * kPairs; i += blockDim.x) {
      const int row = i / kPairs;
      const int pair = i % kPairs;
      const int kk = k0 + 2 * pair;
      float a = 0.f, b = 0.f;  // zeros past M or K, as the stream kernel's
      if (row < M && kk < K) {
        const float* at = x + static_cast<int64_t>(row) * K + kk;
        if (x_pairs) {
          const float2 ab = *reinterpret_cast<const float2*>(at);
          a = ab.x;
          b = ab.y;
        } else {
          a = at[0];
          b = kk + 1 < K ? at[1] : 0.f;
        }
      }
      uint32_t hi, lo;
      split_pair<Element, kLo>(a, b, hi, lo);
      staged_hi[row][pair] = hi;
      if constexpr (kLo) staged_lo[row][pair] = lo;
    }
    __syncthreads();
    uint32_t a[4][4];  // step j's A fragment, the same for every group of rows
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      a[j][0] = pack_pair(top.v[4 * j], top.v[4 * j + 1]);
      a[j][2] = pack_pair(top.v[4 * j + 2], top.v[4 * j + 3]);
      a[j][1] = pack_pair(bottom.v[4 * j], bottom.v[4 * j + 1]);
      a[j][3] = pack_pair(bottom.v[4 * j + 2], bottom.v[4 * j + 3]);
    }
#pragma unroll
    for (int group = 0; group < kSliceMaxRows / kStreamGroup; ++group) {
      if (group >= groups) break;
      const int row = kStreamGroup * group + g;
      // Pairs 8 t .. 8 t + 7 of the row: step j takes pairs 2 j and 2 j + 1.
      const uint4 hi[2] = {*reinterpret_cast<const uint4*>(&staged_hi[row][8 * t]),
                           *reinterpret_cast<const uint4*>(&staged_hi[row][8 * t + 4])};
      uint4 lo[2] = {};
      if constexpr (kLo) {
        lo[0] = *reinterpret_cast<const uint4*>(&staged_lo[row][8 * t]);
        lo[1] = *reinterpret_cast<const uint4*>(&staged_lo[row][8 * t + 4]);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const uint4& h = hi[j / 2];
        const uint32_t b_hi[2] = {j % 2 == 0 ? h.x : h.z, j % 2 == 0 ? h.y : h.w};
        mma_16x8x16<Element>(c[group], a[j], b_hi);
        if constexpr (kLo && !kPlantedDropsLo) {
          const uint4& l = lo[j / 2];
          const uint32_t b_lo[2] = {j % 2 == 0 ? l.x : l.z, j % 2 == 0 ? l.y : l.w};
          mma_16x8x16<Element>(c[group], a[j], b_lo);
        }
      }
    }
  }
  // c[group][i]: A row g + 8 (i / 2), B column 2 t + i % 2.
  float* out = partial + static_cast<int64_t>(slice) * M * N;
#pragma unroll
  for (int group = 0; group < kSliceMaxRows / kStreamGroup; ++group) {
    if (group >= groups) break;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = kStreamGroup * group + 2 * t + i % 2;
      const int column = n0 + g + 8 * (i / 2);
      if (row < M && column < N) out[static_cast<int64_t>(row) * N + column] = c[group][i];
    }
  }
}

// y = partial[0] + partial[1] + ... in slice order (the stream kernel's
// warp order).
__global__ void mma_gemm_slices_sum_kernel(const float* __restrict__ partial, float* __restrict__ y,
                                           int64_t count) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float sum = partial[i];
#pragma unroll
  for (int s = 1; s < kSliceCount; ++s) sum = __fadd_rn(sum, partial[s * count + i]);
  y[i] = sum;
}

// x [M, K] fp32, w [N, K], y [M, N]; partial: kSliceCount * M * N floats.
template <typename Element, bool kLo>
cudaError_t launch_mma_gemm_slices(const float* x, const Element* w, float* y, float* partial, int M,
                                   int N, int K, cudaStream_t stream) {
  if (M < 0 || N < 0 || K < 0 || M > kSliceMaxRows) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;
  const dim3 grid((N + kSliceColumns - 1) / kSliceColumns, kSliceCount);
  if (gemm_rows_aligned(x, w, K))
    mma_gemm_slice_kernel<Element, true, kLo><<<grid, kSliceWarps * 32, 0, stream>>>(x, w, partial, M, N, K);
  else
    mma_gemm_slice_kernel<Element, false, kLo><<<grid, kSliceWarps * 32, 0, stream>>>(x, w, partial, M, N, K);
  const int64_t count = static_cast<int64_t>(M) * N;
  mma_gemm_slices_sum_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(partial, y,
                                                                                           count);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
