// The decode GEMM y = x w^T (mma_gemm.cuh) with the weights streamed as the
// mma's A operand: m16n8k16, 16 (or 8) output columns of w as A's rows, up
// to 8 rows of x as B's columns. A lane's two 16-byte weight loads feed four
// mma steps directly, with no conversion; only the few real x rows are
// split into hi / lo halves. The certified mma_gemm_x_a.cuh feeds x as A
// (15 of its 16 rows padding at M = 1) and converts both x rows of every
// lane for each 8-k step: about eight times the instructions per weight
// byte, which the profile showed as the decode GEMM's limit.
//
// Work split: a block owns kTile (16 or 8, fixed by N alone) output columns;
// its kStreamWarps warps share K. The gate_up form (kSwiGLU) gives A's rows
// g the gate columns n0 + g and rows g + 8 the up columns N + n0 + g of the
// same 8 intermediate units, so its epilogue writes SwiGLU(gate, up), with
// swiglu_kernel's bits (each output element of an mma depends only on its
// own row of A), and the step needs no SwiGLU kernel.
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

// kTile: output columns per block (16: A's rows g and g + 8; 8: rows g
// only, the others zero; the gate_up form: 8 units, 16 rows of w).
// kGroups: groups of 8 x rows per pass over w.
// kDepth: chunks a warp loads before it multiplies any (weights in flight;
// the multiplication order is the same for every depth).
template <typename Element, bool kVec, int kTile, int kGroups, int kDepth, bool kLo,
          bool kSwiGLU = false>
__global__ void __launch_bounds__(kStreamWarps * 32, 2)  // two blocks an SM: 128 registers
    mma_gemm_stream_kernel(const float* __restrict__ x, const Element* __restrict__ w,
                           float* __restrict__ y, int M, int N, int K) {
  __shared__ float partial[kStreamWarps][32][kGroups][4];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane / 4;  // A's rows g, g + 8 (columns of w); B's column g (a row of x)
  const int t = lane % 4;  // the quad: which 16 k of a chunk
  static_assert(!kSwiGLU || kTile == 16, "the gate_up form takes gate and up rows");
  const int n0 = blockIdx.x * (kSwiGLU ? 8 : kTile);
  const Element* w_top = n0 + g < N ? w + static_cast<int64_t>(n0 + g) * K : nullptr;
  const int bottom_row = kSwiGLU ? N + n0 + g : n0 + g + 8;  // w's row behind A's row g + 8
  const Element* w_bottom = kTile == 16 && (kSwiGLU ? n0 + g : n0 + g + 8) < N
                                ? w + static_cast<int64_t>(bottom_row) * K
                                : nullptr;
  constexpr int kStride = kStreamChunk * kStreamWarps;  // between a warp's chunks
  constexpr int kRows = kStreamGroup * kGroups;

  for (int m0 = 0; m0 < M; m0 += kRows) {
    const float* x_rows[kGroups];
#pragma unroll
    for (int group = 0; group < kGroups; ++group) {
      const int row = m0 + kStreamGroup * group + g;
      x_rows[group] = row < M ? x + static_cast<int64_t>(row) * K : nullptr;
    }
    float c[kGroups][4] = {};
    for (int k0 = warp * kStreamChunk; k0 < K; k0 += kStride * kDepth) {
      Sixteen<Element> top[kDepth];
      Sixteen<Element> bottom[kTile == 16 ? kDepth : 1];
      Sixteen<float> xv[kDepth][kGroups];
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        const int k = k0 + u * kStride + 16 * t;
        const int valid = K - k;  // <= 0 past the end: nothing is read
        load16<Element, kVec>(w_top != nullptr ? w_top + k : w, w_top != nullptr ? valid : 0,
                              top[u]);
        if constexpr (kTile == 16) {
          load16<Element, kVec>(w_bottom != nullptr ? w_bottom + k : w,
                                w_bottom != nullptr ? valid : 0, bottom[u]);
        }
#pragma unroll
        for (int group = 0; group < kGroups; ++group) {
          const float* row = x_rows[group];
          load16<float, kVec>(row != nullptr ? row + k : x, row != nullptr ? valid : 0,
                              xv[u][group]);
        }
      }
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        if (k0 + u * kStride >= K) break;  // the same chunks as K alone gives
        stream_chunk<Element, kTile, kGroups, kLo>(c, top[u], bottom[kTile == 16 ? u : 0], xv[u]);
      }
    }
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
      // c[i]: A row g + 8 (i / 2), B column 2 t + i % 2.
#pragma unroll
      for (int group = 0; group < kGroups; ++group) {
        if constexpr (kSwiGLU) {
#pragma unroll
          for (int i = 0; i < 2; ++i) {
            const int row = m0 + kStreamGroup * group + 2 * t + i;
            const int column = n0 + g;
            if (row < M && column < N)
              y[static_cast<int64_t>(row) * N + column] = swiglu_of(c[group][i], c[group][2 + i]);
          }
        } else {
#pragma unroll
          for (int i = 0; i < (kTile == 16 ? 4 : 2); ++i) {
            const int row = m0 + kStreamGroup * group + 2 * t + i % 2;
            const int column = n0 + g + 8 * (i / 2);
            if (row < M && column < N) y[static_cast<int64_t>(row) * N + column] = c[group][i];
          }
        }
      }
    }
    __syncthreads();  // partial is read before the next pass writes it
  }
}

// The tile width and pass shape: kTile by N alone (16 columns where that
// still gives 256 blocks); rows per pass and depth by M, which changes no bit.
template <typename Element, bool kVec, int kTile, bool kLo, bool kSwiGLU = false>
void launch_mma_gemm_stream_tile(const float* x, const Element* w, float* y, int M, int N, int K,
                                 cudaStream_t stream) {
  const int columns = kSwiGLU ? 8 : kTile;
  const dim3 grid((N + columns - 1) / columns);
  const int threads = kStreamWarps * 32;
  if (M <= kStreamGroup) {
    mma_gemm_stream_kernel<Element, kVec, kTile, 1, kTile == 16 ? 2 : 4, kLo, kSwiGLU>
        <<<grid, threads, 0, stream>>>(x, w, y, M, N, K);
  } else if (M <= 2 * kStreamGroup) {
    mma_gemm_stream_kernel<Element, kVec, kTile, 2, 1, kLo, kSwiGLU>
        <<<grid, threads, 0, stream>>>(x, w, y, M, N, K);
  } else {
    mma_gemm_stream_kernel<Element, kVec, kTile, 4, 1, kLo, kSwiGLU>
        <<<grid, threads, 0, stream>>>(x, w, y, M, N, K);
  }
}

template <typename Element, bool kLo>
void launch_mma_gemm_stream(const float* x, const Element* w, float* y, int M, int N, int K,
                            cudaStream_t stream) {
  const bool wide = N >= 256 * 16;
  if (gemm_rows_aligned(x, w, K)) {
    if (wide) launch_mma_gemm_stream_tile<Element, true, 16, kLo>(x, w, y, M, N, K, stream);
    else launch_mma_gemm_stream_tile<Element, true, 8, kLo>(x, w, y, M, N, K, stream);
  } else {
    if (wide) launch_mma_gemm_stream_tile<Element, false, 16, kLo>(x, w, y, M, N, K, stream);
    else launch_mma_gemm_stream_tile<Element, false, 8, kLo>(x, w, y, M, N, K, stream);
  }
}

// activation[m, u] = SwiGLU(x w_gate[u]^T, x w_up[u]^T) for the units u <
// `units`, w [2 units, K] (gate rows, then up rows), as the gate_up GEMM
// and swiglu_kernel give it.
template <typename Element, bool kLo>
void launch_mma_gemm_stream_swiglu(const float* x, const Element* w, float* activation, int M,
                                   int units, int K, cudaStream_t stream) {
  if (gemm_rows_aligned(x, w, K))
    launch_mma_gemm_stream_tile<Element, true, 16, kLo, true>(x, w, activation, M, units, K, stream);
  else
    launch_mma_gemm_stream_tile<Element, false, 16, kLo, true>(x, w, activation, M, units, K, stream);
}

}  // namespace algenta::cuda
