// The decode GEMM y = x w^T (mma_gemm.cuh) with the weights streamed as the
// mma's A operand: m16n8k16, 16 (or 8) output columns of w as A's rows, up
// to 8 rows of x as B's columns. A lane's two 16-byte weight loads feed four
// mma steps directly, with no conversion; only the few real x rows are
// split into hi / lo halves. The certified mma_gemm_x_a.cuh feeds x as A
// (15 of its 16 rows padding at M = 1) and converts both x rows of every
// lane for each 8-k step: about eight times the instructions per weight
// byte, which the profile showed as the decode GEMM's limit.
//
// Work split: a tile is kTile (16 or 8, fixed by N alone) output columns;
// a block takes one tile (a normed block several, so that it computes its
// rows' scales once), and its kStreamWarps warps share K. The gate_up form (kSwiGLU) gives A's rows
// g the gate columns n0 + g and rows g + 8 the up columns N + n0 + g of the
// same 8 intermediate units, so its epilogue writes SwiGLU(gate, up), with
// swiglu_kernel's bits (each output element of an mma depends only on its
// own row of A), and the step needs no SwiGLU kernel.
//
// Fused neighbours (fused_inputs.cuh gives each the bits of the kernel it
// replaces): kNormed takes x's rows as their RMS norm times norm_weight
// (rmsnorm_residual_kernel's out, the scales computed per block by
// warp_rms_scale, up to kMaxStreamNormRows rows); StreamOut::residual adds
// the product (+ bias) to the residual stream y, as the norm kernel's
// residual add did.
//
// Reduction order, fixed by K alone: K is cut into chunks of 64 from k = 0;
// warp s takes chunks s, s + kStreamWarps, ... in increasing order. In a
// chunk, quad t (lane % 4) holds k = chunk + 16 t .. + 15 of its w rows
// and x row; mma step j (0..3) multiplies k = chunk + 16 t + 4 j + {0..3}
// of all four quads (the mma's k slots 2t, 2t+1 take +{0,1}, slots 2t+8,
// 2t+9 take +{2,3}: one fixed permutation of k, the same for w and x), hi
// first, then lo. The warps' partial tiles are then added in warp order
// 0, 1, ... Each output element of an mma depends only on its own row of A
// and column of B, so a row's bits depend neither on M nor on the other
// rows: rows go through the same steps in groups of 8 whatever M is. No
// atomics; ragged K and N are zero-padded (exact zeros).
#pragma once

#include <algorithm>

#include "dependent_launch.cuh"
#include "engine_settings.hpp"
#include "fused_inputs.cuh"
#include "mma_gemm_ops.cuh"

namespace algenta::cuda {

inline constexpr int kStreamWarps = 8;  // warps per block, each a share of K
inline constexpr int kStreamChunk = 64; // k per step of a warp (4 quads x 16)
inline constexpr int kStreamGroup = 8;  // x rows per mma (its n)

// c += A (16 x 16) * B (16 x 8). From sm_80 one m16n8k16; sm_75 (f16 only)
// runs it as two m16n8k8 over the k halves.
template <typename Element>
__device__ __forceinline__ void mma_16x8x16(float (&c)[4], const uint32_t (&a)[4],
                                            const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#else
  mma_16x8x8<Element>(c, a[0], a[1], b[0]);
  mma_16x8x8<Element>(c, a[2], a[3], b[1]);
#endif
}

// One 64-k chunk: mma steps j = 0..3 for each group of 8 x rows, hi then lo.
template <typename Element, int kTile, int kGroups, bool kLo>
__device__ __forceinline__ void stream_chunk(float (&c)[kGroups][4], const Sixteen<Element>& top,
                                             const Sixteen<Element>& bottom,
                                             const Sixteen<float> (&xv)[kGroups]) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    uint32_t a[4];
    a[0] = pack_pair(top.v[4 * j], top.v[4 * j + 1]);
    a[2] = pack_pair(top.v[4 * j + 2], top.v[4 * j + 3]);
    a[1] = kTile == 16 ? pack_pair(bottom.v[4 * j], bottom.v[4 * j + 1]) : 0u;
    a[3] = kTile == 16 ? pack_pair(bottom.v[4 * j + 2], bottom.v[4 * j + 3]) : 0u;
#pragma unroll
    for (int group = 0; group < kGroups; ++group) {
      const float* xs = xv[group].v + 4 * j;
      uint32_t hi[2], lo[2];
      split_pair<Element, kLo>(xs[0], xs[1], hi[0], lo[0]);
      split_pair<Element, kLo>(xs[2], xs[3], hi[1], lo[1]);
      mma_16x8x16<Element>(c[group], a, hi);
      if constexpr (kLo && !kPlantedDropsLo) mma_16x8x16<Element>(c[group], a, lo);
    }
  }
}

// What a stream GEMM reads and writes. x [M, K]; kNormed: x's rows enter as
// x / sqrt(mean(x^2) + eps) * norm_weight. y: StreamOut::store [M, N];
// swiglu [M, N units]; residual: the residual stream [M, N], which gets
// y += product (+ bias[n] first, when given).
struct StreamIo {
  const float* x = nullptr;
  const float* norm_weight = nullptr;
  float eps = 0.f;
  float* y = nullptr;
  const float* bias = nullptr;
  // Send a tile's later passes to L2 at its start (all of a warp's share of
  // K), not only the next pass: more bytes in flight where a warp runs
  // several passes in sequence. Weights only, so no bit changes.
  bool prefetch_tile = false;
  // Up to 8 rows: the ring kernel (mma_gemm_ring.cuh) instead, same bits.
  bool ring = false;
};

// The engine's switches for the options above, from the environment
// (ALGENTA_CUDA_PREFETCH_TILE=1, ALGENTA_CUDA_STREAM_RING=1; off until
// measured on a card, docs/performance.md).
inline StreamIo with_stream_settings(StreamIo io) {
  static const bool prefetch_tile = setting_is_on("ALGENTA_CUDA_PREFETCH_TILE");
  static const bool ring = setting_is_on("ALGENTA_CUDA_STREAM_RING");
  io.prefetch_tile = prefetch_tile;
  io.ring = ring;
  return io;
}

enum class StreamOut { store, swiglu, residual };

// Rows whose norm scales a kNormed block computes (one warp a row, twice).
inline constexpr int kMaxStreamNormRows = 2 * kStreamWarps;

// The x values a warp multiplies for chunk k of its rows: kNormed rows as
// rmsnorm_residual_kernel writes them, x * scale * norm_weight (rows past M
// have scale 0 and x 0: zeros still).
template <int kGroups>
__device__ __forceinline__ void apply_norm(Sixteen<float> (&xv)[kGroups], const Sixteen<float>& weight,
                                           const float* row_scale, int m0, int g) {
#pragma unroll
  for (int group = 0; group < kGroups; ++group) {
    const float scale = row_scale[m0 + kStreamGroup * group + g];
#pragma unroll
    for (int j = 0; j < 16; ++j)
      xv[group].v[j] = __fmul_rn(__fmul_rn(xv[group].v[j], scale), weight.v[j]);
  }
}

// The norm weights of chunk k (zeros past K).
template <bool kVec>
__device__ __forceinline__ void load_norm_weight(const StreamIo& io, int k, int valid,
                                                 Sixteen<float>& weight) {
  load16<float, kVec>(io.norm_weight + (valid > 0 ? k : 0), valid, weight);
}

template <bool kVec, bool kNormed, int kGroups>
__device__ __forceinline__ void normalize_chunk(Sixteen<float> (&xv)[kGroups], const StreamIo& io,
                                                const float* row_scale, int m0, int g, int k,
                                                int valid) {
  if constexpr (kNormed) {
    Sixteen<float> weight;
    load_norm_weight<kVec>(io, k, valid, weight);
    apply_norm(xv, weight, row_scale, m0, g);
  }
}

// A block's rows' norm scales, one warp a row (rows past M: 0), for kRows rows.
template <int kRows>
__device__ __forceinline__ void compute_row_scales(const StreamIo& io, float* row_scale, int M, int K,
                                                   int warp, int lane) {
  for (int m = warp; m < kRows; m += kStreamWarps) {
    const float scale = m < M ? warp_rms_scale(io.x + static_cast<int64_t>(m) * K, K, io.eps) : 0.f;
    if (lane == 0) row_scale[m] = scale;
  }
  __syncthreads();
}

// The end of a tile's pass over K: each warp's partial tile into shared
// memory, then warp 0 adds them in warp order (1, 2, ...) to its own and
// writes the rows m0 .. m0 + 8 kGroups - 1 of columns n0 .. in kOut's form.
// c[group][i]: A row g + 8 (i / 2), B column 2 t + i % 2.
template <int kTile, int kGroups, StreamOut kOut>
__device__ __forceinline__ void finish_stream_tile(const StreamIo& io,
                                                   float (&partial)[kStreamWarps][32][kGroups][4],
                                                   float (&c)[kGroups][4], int n0, int m0, int M,
                                                   int N) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane / 4;
  const int t = lane % 4;
#pragma unroll
  for (int group = 0; group < kGroups; ++group) {
#pragma unroll
    for (int i = 0; i < 4; ++i) partial[warp][lane][group][i] = c[group][i];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int s = 1; s < kStreamWarps; ++s) {
#pragma unroll
      for (int group = 0; group < kGroups; ++group) {
#pragma unroll
        for (int i = 0; i < 4; ++i) c[group][i] = __fadd_rn(c[group][i], partial[s][lane][group][i]);
      }
    }
#pragma unroll
    for (int group = 0; group < kGroups; ++group) {
      if constexpr (kOut == StreamOut::swiglu) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          const int row = m0 + kStreamGroup * group + 2 * t + i;
          const int column = n0 + g;
          if (row < M && column < N)
            io.y[static_cast<int64_t>(row) * N + column] = swiglu_of(c[group][i], c[group][2 + i]);
        }
      } else {
#pragma unroll
        for (int i = 0; i < (kTile == 16 ? 4 : 2); ++i) {
          const int row = m0 + kStreamGroup * group + 2 * t + i % 2;
          const int column = n0 + g + 8 * (i / 2);
          if (row >= M || column >= N) continue;
          float* target = io.y + static_cast<int64_t>(row) * N + column;
          if constexpr (kOut == StreamOut::residual) {
            const float d = io.bias != nullptr ? __fadd_rn(c[group][i], io.bias[column]) : c[group][i];
            *target = residual_add(*target, d);
          } else {
            *target = c[group][i];
          }
        }
      }
    }
  }
  __syncthreads();  // partial is read before the next pass writes it
}

// w's row behind A's row g (top) or g + 8 (bottom) of the tile at n0, null
// past N: the gate_up form's bottom rows are the up rows N + n0 + g.
template <typename Element, int kTile, StreamOut kOut>
__device__ __forceinline__ const Element* stream_top_row(const Element* w, int n0, int g, int N,
                                                         int K) {
  return n0 + g < N ? w + static_cast<int64_t>(n0 + g) * K : nullptr;
}

template <typename Element, int kTile, StreamOut kOut>
__device__ __forceinline__ const Element* stream_bottom_row(const Element* w, int n0, int g, int N,
                                                            int K) {
  constexpr bool kSwiGLU = kOut == StreamOut::swiglu;
  if (kTile != 16 || (kSwiGLU ? n0 + g : n0 + g + 8) >= N) return nullptr;
  return w + static_cast<int64_t>(kSwiGLU ? N + n0 + g : n0 + g + 8) * K;
}

// kTile: output columns per block (16: A's rows g and g + 8; 8: rows g
// only, the others zero; the swiglu form: 8 units, 16 rows of w).
// kGroups: groups of 8 x rows per pass over w.
// kDepth: chunks a warp loads before it multiplies any (weights in flight;
// the multiplication order is the same for every depth).
template <typename Element, bool kVec, int kTile, int kGroups, int kDepth, bool kLo, bool kNormed,
          StreamOut kOut>
__global__ void __launch_bounds__(kStreamWarps * 32, 2)  // two blocks an SM: 128 registers
    mma_gemm_stream_kernel(const StreamIo io, const Element* __restrict__ w, int M, int N, int K) {
  constexpr bool kSwiGLU = kOut == StreamOut::swiglu;
  __shared__ float partial[kStreamWarps][32][kGroups][4];
  __shared__ float row_scale[kNormed ? kMaxStreamNormRows : 1];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane / 4;  // A's rows g, g + 8 (columns of w); B's column g (a row of x)
  const int t = lane % 4;  // the quad: which 16 k of a chunk
  static_assert(!kSwiGLU || kTile == 16, "the gate_up form takes gate and up rows");
  static_assert(!kNormed || kGroups * kStreamGroup <= kMaxStreamNormRows, "one pass of normed rows");
  constexpr int kColumns = kSwiGLU ? 8 : kTile;           // output columns of a tile
  constexpr int kStride = kStreamChunk * kStreamWarps;  // between a warp's chunks
  constexpr int kRows = kStreamGroup * kGroups;
  const int tiles = (N + kColumns - 1) / kColumns;
  const float* x = io.x;
  const auto top_row = [&](int n0) { return stream_top_row<Element, kTile, kOut>(w, n0, g, N, K); };
  const auto bottom_row = [&](int n0) {
    return stream_bottom_row<Element, kTile, kOut>(w, n0, g, N, K);
  };
  // Chunk u of the pass at k0 of a tile's weights, into registers (zeros
  // past K or N).
  const auto load_weight_chunk = [&](const Element* w_top, const Element* w_bottom, int k0, int u,
                                     Sixteen<Element>& top_u, Sixteen<Element>& bottom_u) {
    const int k = k0 + u * kStride + 16 * t;
    const int valid = K - k;  // <= 0 past the end: nothing is read
    load16<Element, kVec>(w_top != nullptr ? w_top + k : w, w_top != nullptr ? valid : 0, top_u);
    if constexpr (kTile == 16) {
      load16<Element, kVec>(w_bottom != nullptr ? w_bottom + k : w, w_bottom != nullptr ? valid : 0,
                            bottom_u);
    }
  };
  // Chunks u = 0 .. kDepth - 1 of that pass.
  const auto load_weights = [&](const Element* w_top, const Element* w_bottom, int k0,
                                Sixteen<Element>(&top)[kDepth],
                                Sixteen<Element>(&bottom)[kTile == 16 ? kDepth : 1]) {
#pragma unroll
    for (int u = 0; u < kDepth; ++u)
      load_weight_chunk(w_top, w_bottom, k0, u, top[u], bottom[kTile == 16 ? u : 0]);
  };
  // Chunk u of the pass at k0 of each group's x row (zeros past K or M).
  const auto load_x_chunk = [&](const float* const (&x_rows)[kGroups], int k0, int u,
                                Sixteen<float>(&xv_u)[kGroups]) {
    const int k = k0 + u * kStride + 16 * t;
    const int valid = K - k;
#pragma unroll
    for (int group = 0; group < kGroups; ++group) {
      const float* row = x_rows[group];
      load16<float, kVec>(row != nullptr ? row + k : x, row != nullptr ? valid : 0, xv_u[group]);
    }
  };
  // The same chunks of a tile's weights to L2.
  const auto prefetch_weights = [&](int tile, int k0) {
    const Element* top = top_row(tile * kColumns);
    const Element* bottom = bottom_row(tile * kColumns);
#pragma unroll
    for (int u = 0; u < kDepth; ++u) {
      const int k = k0 + u * kStride + 16 * t;
      if (k < K && top != nullptr) asm volatile("prefetch.global.L2 [%0];" ::"l"(top + k));
      if (k < K && bottom != nullptr) asm volatile("prefetch.global.L2 [%0];" ::"l"(bottom + k));
    }
  };

  // Launched as a dependent (dependent_launch.cuh): the weights of the first
  // tile's first pass go into registers, and its second pass's to L2, while
  // the kernel ahead is still running (weights are constant); x only after
  // it has finished. For most decode shapes the first pass is a warp's whole
  // share of K.
  const int first_k0 = warp * kStreamChunk;
  Sixteen<Element> top[kDepth];
  Sixteen<Element> bottom[kTile == 16 ? kDepth : 1];
  // A tile's passes after the first, to L2: the next one, or with
  // prefetch_tile all of them.
  const auto prefetch_later_passes = [&](int tile) {
    for (int k0 = first_k0 + kStride * kDepth; k0 < K; k0 += kStride * kDepth) {
      prefetch_weights(tile, k0);
      if (!io.prefetch_tile) break;
    }
  };
  allow_next_kernel();
  load_weights(top_row(blockIdx.x * kColumns), bottom_row(blockIdx.x * kColumns), first_k0, top,
               bottom);
  prefetch_later_passes(blockIdx.x);
  wait_for_previous_kernel();
  if constexpr (kNormed) compute_row_scales<kMaxStreamNormRows>(io, row_scale, M, K, warp, lane);
  bool loaded = true;  // top and bottom hold the first tile's first pass

  // A normed block takes several tiles (grid < tiles), so that its scales
  // are computed once; every other form has a block a tile.
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    if (io.prefetch_tile && tile != blockIdx.x) prefetch_later_passes(tile);
    if (tile + gridDim.x < tiles) prefetch_weights(tile + gridDim.x, first_k0);
    const int n0 = tile * kColumns;
    const Element* w_top = top_row(n0);
    const Element* w_bottom = bottom_row(n0);
    for (int m0 = 0; m0 < M; m0 += kRows) {
      const float* x_rows[kGroups];
#pragma unroll
      for (int group = 0; group < kGroups; ++group) {
        const int row = m0 + kStreamGroup * group + g;
        x_rows[group] = row < M ? x + static_cast<int64_t>(row) * K : nullptr;
      }
      float c[kGroups][4] = {};
      for (int k0 = first_k0; k0 < K; k0 += kStride * kDepth) {
        if (!loaded) load_weights(w_top, w_bottom, k0, top, bottom);
        loaded = false;
        Sixteen<float> xv[kDepth][kGroups];
#pragma unroll
        for (int u = 0; u < kDepth; ++u) load_x_chunk(x_rows, k0, u, xv[u]);
#pragma unroll
        for (int u = 0; u < kDepth; ++u) {
          if (k0 + u * kStride >= K) break;  // the same chunks as K alone gives
          const int k = k0 + u * kStride + 16 * t;
          normalize_chunk<kVec, kNormed, kGroups>(xv[u], io, row_scale, m0, g, k, K - k);
          stream_chunk<Element, kTile, kGroups, kLo>(c, top[u], bottom[kTile == 16 ? u : 0], xv[u]);
        }
      }
      finish_stream_tile<kTile, kGroups, kOut>(io, partial, c, n0, m0, M, N);
    }
  }
}

// Blocks of the stream kernel the device holds at once (two an SM).
inline int resident_stream_blocks() {
  static const int blocks = [] {
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return 1;
    return 2 * sms;
  }();
  return blocks;
}

// The pass shape: rows per pass and depth by M, which changes no bit
// (normed rows stop at kMaxStreamNormRows: one pass).
template <typename Element, bool kVec, int kTile, bool kLo, bool kNormed, StreamOut kOut>
void launch_mma_gemm_stream_rows(const StreamIo& io, const Element* w, int M, int N, int K,
                                 cudaStream_t stream) {
  const int columns = kOut == StreamOut::swiglu ? 8 : kTile;
  const int tiles = (N + columns - 1) / columns;
  const dim3 grid(kNormed ? std::min(tiles, resident_stream_blocks()) : tiles);
  const int threads = kStreamWarps * 32;
  if (M <= kStreamGroup) {
    launch_dependent(mma_gemm_stream_kernel<Element, kVec, kTile, 1, kTile == 16 ? 2 : 4, kLo,
                                            kNormed, kOut>,
                     grid, threads, stream, io, w, M, N, K);
  } else if (kNormed || M <= 2 * kStreamGroup) {
    launch_dependent(mma_gemm_stream_kernel<Element, kVec, kTile, 2, 1, kLo, kNormed, kOut>, grid,
                     threads, stream, io, w, M, N, K);
  } else if constexpr (!kNormed) {
    launch_dependent(mma_gemm_stream_kernel<Element, kVec, kTile, 4, 1, kLo, kNormed, kOut>, grid,
                     threads, stream, io, w, M, N, K);
  }
}

// Whether x, w (and kNormed's norm weights) may be read 16 bytes at a time.
template <bool kNormed, typename Element>
bool stream_rows_aligned(const StreamIo& io, const Element* w, int K) {
  return gemm_rows_aligned(io.x, w, K) &&
         (!kNormed || reinterpret_cast<uintptr_t>(io.norm_weight) % 16 == 0);
}

// The tile width by N alone (16 columns where that still gives 256 blocks;
// the swiglu form always 16 rows of w), and the 16-byte or scalar loads.
// kNormed needs M <= kMaxStreamNormRows (launch_mma_gemm_fused checks).
template <typename Element, bool kLo, bool kNormed, StreamOut kOut>
void launch_mma_gemm_stream_io(StreamIo io, const Element* w, int M, int N, int K,
                               cudaStream_t stream) {
  const bool vec = stream_rows_aligned<kNormed>(io, w, K);
  if constexpr (kOut == StreamOut::swiglu) {
    if (vec) launch_mma_gemm_stream_rows<Element, true, 16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
    else launch_mma_gemm_stream_rows<Element, false, 16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
  } else {
    const bool wide = N >= 256 * 16;
    if (vec && wide) launch_mma_gemm_stream_rows<Element, true, 16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
    else if (vec) launch_mma_gemm_stream_rows<Element, true, 8, kLo, kNormed, kOut>(io, w, M, N, K, stream);
    else if (wide) launch_mma_gemm_stream_rows<Element, false, 16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
    else launch_mma_gemm_stream_rows<Element, false, 8, kLo, kNormed, kOut>(io, w, M, N, K, stream);
  }
}

}  // namespace algenta::cuda
