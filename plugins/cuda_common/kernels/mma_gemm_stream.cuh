// The decode GEMM y = x w^T (mma_gemm.cuh) with the weights streamed as the
// mma's A operand: m16n8k16, 16 (or 8) output columns of w as A's rows, up
// to 8 rows of x as B's columns. A lane's two 16-byte weight loads feed four
// mma steps directly, with no conversion; only the few real x rows are
// split into hi / lo halves. The certified mma_gemm_x_a.cuh feeds x as A
// (15 of its 16 rows padding at M = 1) and converts both x rows of every
// lane for each 8-k step: about eight times the instructions per weight
// byte, which the profile showed as the decode GEMM's limit.
//
// Work split: a tile is kTile (16 or 8, by N and M; no bit depends on it)
// output columns; a block takes one tile (a normed block several in turn,
// so that it computes its rows' scales once; past 16 rows two at once, so
// that each x value it reads serves both), and its kStreamWarps warps share
// K. The gate_up form (kSwiGLU) gives A's rows
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

// One 64-k chunk of one group of 8 x rows against kTiles tiles: mma steps
// j = 0..3, hi then lo, each x pair split once for every tile.
template <typename Element, int kTile, int kTiles, bool kLo>
__device__ __forceinline__ void stream_chunk(float (&c)[kTiles][4], const Sixteen<Element> (&top)[kTiles],
                                             const Sixteen<Element> (&bottom)[kTiles],
                                             const Sixteen<float>& xv) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    uint32_t hi[2], lo[2];
    split_pair<Element, kLo>(xv.v[4 * j], xv.v[4 * j + 1], hi[0], lo[0]);
    split_pair<Element, kLo>(xv.v[4 * j + 2], xv.v[4 * j + 3], hi[1], lo[1]);
#pragma unroll
    for (int tile = 0; tile < kTiles; ++tile) {
      const Sixteen<Element>& up = top[tile];
      const Sixteen<Element>& down = bottom[tile];
      uint32_t a[4];
      a[0] = pack_pair(up.v[4 * j], up.v[4 * j + 1]);
      a[2] = pack_pair(up.v[4 * j + 2], up.v[4 * j + 3]);
      a[1] = kTile == 16 ? pack_pair(down.v[4 * j], down.v[4 * j + 1]) : 0u;
      a[3] = kTile == 16 ? pack_pair(down.v[4 * j + 2], down.v[4 * j + 3]) : 0u;
      mma_16x8x16<Element>(c[tile], a, hi);
      if constexpr (kLo && !kPlantedDropsLo) mma_16x8x16<Element>(c[tile], a, lo);
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
  // A warp keeps its next pass's weights loading while it multiplies the
  // current one (two passes in flight), instead of loading each pass when
  // it reaches it. Weights only, so no bit changes either way.
  bool loads_ahead = true;
};

// ALGENTA_CUDA_STREAM_LOADS_AHEAD=0 loads each pass when it is reached (for
// measuring the difference on a card).
inline bool stream_loads_ahead_setting() {
  static const bool on = setting_is_not_off("ALGENTA_CUDA_STREAM_LOADS_AHEAD");
  return on;
}

enum class StreamOut { store, swiglu, residual };

// Rows whose norm scales a kNormed block computes (one warp a row, twice).
inline constexpr int kMaxStreamNormRows = 2 * kStreamWarps;

// The x values a warp multiplies for chunk k of its rows: kNormed rows as
// rmsnorm_residual_kernel writes them, x * scale * norm_weight (rows past M
// have scale 0 and x 0: zeros still).
template <bool kVec, bool kNormed, int kGroups>
__device__ __forceinline__ void normalize_chunk(Sixteen<float> (&xv)[kGroups], const StreamIo& io,
                                                const float* row_scale, int m0, int g, int k,
                                                int valid) {
  if constexpr (kNormed) {
    Sixteen<float> weight;
    load16<float, kVec>(io.norm_weight + (valid > 0 ? k : 0), valid, weight);
#pragma unroll
    for (int group = 0; group < kGroups; ++group) {
      const float scale = row_scale[m0 + kStreamGroup * group + g];
#pragma unroll
      for (int j = 0; j < 16; ++j)
        xv[group].v[j] = __fmul_rn(__fmul_rn(xv[group].v[j], scale), weight.v[j]);
    }
  }
}

// A lane's weights for one pass: chunks u = 0 .. kDepth - 1 of A's rows g
// (top) and g + 8 (bottom) of each of a block's kTiles tiles.
template <typename Element, int kTile, int kDepth, int kTiles>
struct StreamWeights {
  Sixteen<Element> top[kDepth][kTiles];
  Sixteen<Element> bottom[kTile == 16 ? kDepth : 1][kTiles];
};

// kTile: output columns of a tile (16: A's rows g and g + 8; 8: rows g
// only, the others zero; the swiglu form: 8 units, 16 rows of w).
// kGroups: groups of 8 x rows per pass over w.
// kDepth: chunks of a warp's share of K per pass (weights in flight; the
// multiplication order is the same for every depth).
// kTiles: adjacent tiles a block takes at once, so that each x value it
// reads and splits serves all of them (1: x's chunks for every group are
// loaded together; more: one group at a time, for the registers).
//
// A block's passes, in order: each of its spans of kTiles tiles, each group
// of kRows rows, each k0 of a warp's share of K. Every warp runs the same
// number of passes (a pass past K loads and multiplies nothing), so all
// meet at each span's reduction. With loads_ahead a warp holds two passes
// of weights in registers: it multiplies one while the next is loading.
template <typename Element, bool kVec, int kTile, int kGroups, int kDepth, int kTiles, bool kLo,
          bool kNormed, StreamOut kOut>
__global__ void __launch_bounds__(kStreamWarps * 32, 2)  // two blocks an SM: 128 registers
    mma_gemm_stream_kernel(const StreamIo io, const Element* __restrict__ w, int M, int N, int K) {
  constexpr bool kSwiGLU = kOut == StreamOut::swiglu;
  __shared__ float partial[kStreamWarps][32][kGroups][kTiles][4];
  __shared__ float row_scale[kNormed ? kMaxStreamNormRows : 1];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane / 4;  // A's rows g, g + 8 (columns of w); B's column g (a row of x)
  const int t = lane % 4;  // the quad: which 16 k of a chunk
  static_assert(!kSwiGLU || kTile == 16, "the gate_up form takes gate and up rows");
  static_assert(!kNormed || kGroups * kStreamGroup <= kMaxStreamNormRows, "one pass of normed rows");
  static_assert(!kNormed || kTiles == 1, "a normed block takes its tiles one at a time");
  constexpr int kColumns = kSwiGLU ? 8 : kTile;           // output columns of a tile
  constexpr int kStride = kStreamChunk * kStreamWarps;  // between a warp's chunks
  constexpr int kPassK = kStride * kDepth;              // between a warp's passes
  constexpr int kRows = kStreamGroup * kGroups;
  using Weights = StreamWeights<Element, kTile, kDepth, kTiles>;
  const int spans = (N + kColumns * kTiles - 1) / (kColumns * kTiles);
  const int first_k0 = warp * kStreamChunk;
  const int k_passes = K > 0 ? (K + kPassK - 1) / kPassK : 1;
  const int row_passes = (M + kRows - 1) / kRows;
  const int block_spans = static_cast<int>(blockIdx.x) < spans ? (spans - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const int passes = block_spans * row_passes * k_passes;
  const float* x = io.x;

  struct Pass {
    int n0, m0, k0;
    bool first, last;  // of its span and rows: zero the sums before, reduce after
  };
  const auto pass_at = [&](int p) {
    const int kp = p % k_passes;
    const int rest = p / k_passes;
    const int span = blockIdx.x + (rest / row_passes) * gridDim.x;
    return Pass{span * kColumns * kTiles, (rest % row_passes) * kRows, first_k0 + kp * kPassK,
                kp == 0, kp == k_passes - 1};
  };
  // w's rows behind A's rows g (top) and g + 8 (bottom) of the tile at n0;
  // null past N.
  const auto top_row = [&](int n0) {
    return n0 + g < N ? w + static_cast<int64_t>(n0 + g) * K : nullptr;
  };
  const auto bottom_row = [&](int n0) -> const Element* {
    if (kTile != 16 || (kSwiGLU ? n0 + g : n0 + g + 8) >= N) return nullptr;
    return w + static_cast<int64_t>(kSwiGLU ? N + n0 + g : n0 + g + 8) * K;
  };
  // Pass p's weights into registers (zeros past K or N), and pass p + 1's
  // to L2; nothing past the block's last pass.
  const auto load_pass = [&](int p, Weights& into) {
    if (p >= passes) return;
    const Pass at = pass_at(p);
#pragma unroll
    for (int tile = 0; tile < kTiles; ++tile) {
      const Element* w_top = top_row(at.n0 + tile * kColumns);
      const Element* w_bottom = bottom_row(at.n0 + tile * kColumns);
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        const int k = at.k0 + u * kStride + 16 * t;
        const int valid = K - k;  // <= 0 past the end: nothing is read
        load16<Element, kVec>(w_top != nullptr ? w_top + k : w, w_top != nullptr ? valid : 0,
                              into.top[u][tile]);
        if constexpr (kTile == 16) {
          load16<Element, kVec>(w_bottom != nullptr ? w_bottom + k : w,
                                w_bottom != nullptr ? valid : 0, into.bottom[u][tile]);
        }
      }
    }
    if (p + 1 >= passes) return;
    const Pass next = pass_at(p + 1);
#pragma unroll
    for (int tile = 0; tile < kTiles; ++tile) {
      const Element* next_top = top_row(next.n0 + tile * kColumns);
      const Element* next_bottom = bottom_row(next.n0 + tile * kColumns);
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        const int k = next.k0 + u * kStride + 16 * t;
        if (k < K && next_top != nullptr) asm volatile("prefetch.global.L2 [%0];" ::"l"(next_top + k));
        if (k < K && next_bottom != nullptr) asm volatile("prefetch.global.L2 [%0];" ::"l"(next_bottom + k));
      }
    }
  };
  // x's chunk at k of the group's rows (zeros past M or K).
  const auto load_x = [&](int m0, int group, int k, Sixteen<float>& into) {
    const int row = m0 + kStreamGroup * group + g;
    const float* x_row = row < M ? x + static_cast<int64_t>(row) * K : nullptr;
    load16<float, kVec>(x_row != nullptr ? x_row + k : x, x_row != nullptr ? K - k : 0, into);
  };

  float c[kGroups][kTiles][4];
  // Pass p with its weights: x's chunks in, the mma steps, and after a
  // span's last pass the warps' sums added in warp order and written.
  const auto run_pass = [&](int p, const Weights& weights) {
    const Pass at = pass_at(p);
    if (at.first) {
#pragma unroll
      for (int group = 0; group < kGroups; ++group) {
#pragma unroll
        for (int tile = 0; tile < kTiles; ++tile) {
#pragma unroll
          for (int i = 0; i < 4; ++i) c[group][tile][i] = 0.f;
        }
      }
    }
    if constexpr (kTiles == 1) {
      Sixteen<float> xv[kDepth][kGroups];
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
#pragma unroll
        for (int group = 0; group < kGroups; ++group)
          load_x(at.m0, group, at.k0 + u * kStride + 16 * t, xv[u][group]);
      }
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        if (at.k0 + u * kStride >= K) break;  // the same chunks as K alone gives
        const int k = at.k0 + u * kStride + 16 * t;
        normalize_chunk<kVec, kNormed, kGroups>(xv[u], io, row_scale, at.m0, g, k, K - k);
#pragma unroll
        for (int group = 0; group < kGroups; ++group) {
          stream_chunk<Element, kTile, kTiles, kLo>(c[group], weights.top[u],
                                                    weights.bottom[kTile == 16 ? u : 0], xv[u][group]);
        }
      }
    } else {
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        if (at.k0 + u * kStride >= K) break;  // the same chunks as K alone gives
        const int k = at.k0 + u * kStride + 16 * t;
#pragma unroll
        for (int group = 0; group < kGroups; ++group) {
          Sixteen<float> xv;
          load_x(at.m0, group, k, xv);
          stream_chunk<Element, kTile, kTiles, kLo>(c[group], weights.top[u],
                                                    weights.bottom[kTile == 16 ? u : 0], xv);
        }
      }
    }
    if (!at.last) return;
#pragma unroll
    for (int group = 0; group < kGroups; ++group) {
#pragma unroll
      for (int tile = 0; tile < kTiles; ++tile) {
#pragma unroll
        for (int i = 0; i < 4; ++i) partial[warp][lane][group][tile][i] = c[group][tile][i];
      }
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
      for (int s = 1; s < kStreamWarps; ++s) {
#pragma unroll
        for (int group = 0; group < kGroups; ++group) {
#pragma unroll
          for (int tile = 0; tile < kTiles; ++tile) {
#pragma unroll
            for (int i = 0; i < 4; ++i)
              c[group][tile][i] = __fadd_rn(c[group][tile][i], partial[s][lane][group][tile][i]);
          }
        }
      }
      // c[i]: A row g + 8 (i / 2), B column 2 t + i % 2.
#pragma unroll
      for (int group = 0; group < kGroups; ++group) {
#pragma unroll
        for (int tile = 0; tile < kTiles; ++tile) {
          const float(&sums)[4] = c[group][tile];
          const int n0 = at.n0 + tile * kColumns;
          if constexpr (kSwiGLU) {
#pragma unroll
            for (int i = 0; i < 2; ++i) {
              const int row = at.m0 + kStreamGroup * group + 2 * t + i;
              const int column = n0 + g;
              if (row < M && column < N)
                io.y[static_cast<int64_t>(row) * N + column] = swiglu_of(sums[i], sums[2 + i]);
            }
          } else {
#pragma unroll
            for (int i = 0; i < (kTile == 16 ? 4 : 2); ++i) {
              const int row = at.m0 + kStreamGroup * group + 2 * t + i % 2;
              const int column = n0 + g + 8 * (i / 2);
              if (row >= M || column >= N) continue;
              float* target = io.y + static_cast<int64_t>(row) * N + column;
              if constexpr (kOut == StreamOut::residual) {
                const float d = io.bias != nullptr ? __fadd_rn(sums[i], io.bias[column]) : sums[i];
                *target = residual_add(*target, d);
              } else {
                *target = sums[i];
              }
            }
          }
        }
      }
    }
    __syncthreads();  // partial is read before the next reduction writes it
  };

  // Launched as a dependent (dependent_launch.cuh): the first passes'
  // weights go into registers while the kernel ahead is still running
  // (weights are constant); x only after it has finished. For most decode
  // shapes the first pass is a warp's whole share of K. Several tiles a
  // block leave no registers for a second pass of weights.
  const bool ahead = kTiles == 1 && io.loads_ahead;
  Weights even, odd;  // passes 0, 2, 4, ... and 1, 3, 5, ...
  allow_next_kernel();
  load_pass(0, even);
  if (ahead) load_pass(1, odd);
  wait_for_previous_kernel();
  if constexpr (kNormed) {
    for (int m = warp; m < kMaxStreamNormRows; m += kStreamWarps) {
      const float scale = m < M ? warp_rms_scale(x + static_cast<int64_t>(m) * K, K, io.eps) : 0.f;
      if (lane == 0) row_scale[m] = scale;
    }
    __syncthreads();
  }
  for (int p = 0; p < passes; p += 2) {
    run_pass(p, even);
    if (ahead) load_pass(p + 2, even);
    if (p + 1 >= passes) break;
    if (!ahead) load_pass(p + 1, odd);
    run_pass(p + 1, odd);
    if (ahead) load_pass(p + 3, odd);  // (each buffer named: a selected reference puts both in memory)
    else load_pass(p + 2, even);
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

// The pass shape by M, which changes no bit: rows per pass, depth, and
// tiles a block takes at once (normed rows stop at kMaxStreamNormRows: one
// pass).
template <typename Element, bool kVec, int kTile, bool kLo, bool kNormed, StreamOut kOut>
void launch_mma_gemm_stream_rows(const StreamIo& io, const Element* w, int M, int N, int K,
                                 cudaStream_t stream) {
  const int columns = kOut == StreamOut::swiglu ? 8 : kTile;
  const int tiles = (N + columns - 1) / columns;
  const int threads = kStreamWarps * 32;
  const dim3 grid(kNormed ? std::min(tiles, resident_stream_blocks()) : tiles);
  if (M <= kStreamGroup) {
    // Two chunks a pass, two passes in flight (an 8-column tile's four
    // chunks a pass, twice, spill registers).
    launch_dependent(mma_gemm_stream_kernel<Element, kVec, kTile, 1, 2, 1, kLo, kNormed, kOut>,
                     grid, threads, stream, io, w, M, N, K);
  } else if constexpr (kTile == 16) {  // past 8 rows the tile is 16 columns
    if (kNormed || M <= 2 * kStreamGroup) {
      launch_dependent(mma_gemm_stream_kernel<Element, kVec, kTile, 2, 1, 1, kLo, kNormed, kOut>,
                       grid, threads, stream, io, w, M, N, K);
    } else if constexpr (!kNormed) {
      // Past 16 rows x's reads bound the kernel: a block takes two tiles at
      // once, so that half as many blocks read x.
      const dim3 spans((tiles + 1) / 2);
      launch_dependent(mma_gemm_stream_kernel<Element, kVec, kTile, 4, 1, 2, kLo, kNormed, kOut>,
                       spans, threads, stream, io, w, M, N, K);
    }
  }
}

// The tile width: up to 8 rows, 16 columns where that still gives 256
// blocks (the swiglu form always 16 rows of w); past 8 rows always 16, so
// that half as many blocks read x (there x's reads, not the weights', bound
// the kernel). The width changes no bit: each output of an mma depends only
// on its own row of A. Then the 16-byte or scalar loads.
// kNormed needs M <= kMaxStreamNormRows (launch_mma_gemm_fused checks).
template <typename Element, bool kLo, bool kNormed, StreamOut kOut>
void launch_mma_gemm_stream_io(StreamIo io, const Element* w, int M, int N, int K,
                               cudaStream_t stream) {
  io.loads_ahead = io.loads_ahead && stream_loads_ahead_setting();
  const bool vec = gemm_rows_aligned(io.x, w, K) &&
                   (!kNormed || reinterpret_cast<uintptr_t>(io.norm_weight) % 16 == 0);
  if constexpr (kOut == StreamOut::swiglu) {
    if (vec) launch_mma_gemm_stream_rows<Element, true, 16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
    else launch_mma_gemm_stream_rows<Element, false, 16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
  } else {
    const bool wide = N >= 256 * 16 || M > kStreamGroup;
    if (vec && wide) launch_mma_gemm_stream_rows<Element, true, 16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
    else if (vec) launch_mma_gemm_stream_rows<Element, true, 8, kLo, kNormed, kOut>(io, w, M, N, K, stream);
    else if (wide) launch_mma_gemm_stream_rows<Element, false, 16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
    else launch_mma_gemm_stream_rows<Element, false, 8, kLo, kNormed, kOut>(io, w, M, N, K, stream);
  }
}

// y = x w^T: x [M, K] fp32, w [N, K], y [M, N].
template <typename Element, bool kLo>
void launch_mma_gemm_stream(const float* x, const Element* w, float* y, int M, int N, int K,
                            cudaStream_t stream) {
  StreamIo io;
  io.x = x;
  io.y = y;
  launch_mma_gemm_stream_io<Element, kLo, false, StreamOut::store>(io, w, M, N, K, stream);
}

}  // namespace algenta::cuda
