// The stream GEMM (mma_gemm_stream.cuh) for up to 8 rows of x with its
// weights copied into a ring of shared-memory stages by cp.async (sm_80 on;
// sm_75 copies with plain loads), meant to give its bits, in each of its
// forms (store, swiglu, residual; normed or not).
//
// The stream kernel holds a pass of weights in registers: a warp issues its
// loads, waits for all of them, multiplies, and only then loads again, and
// its 126 registers allow two blocks an SM. Here each warp keeps kStages - 1
// chunks of its share of K in flight all the time: chunk i + kStages - 1 is
// issued as soon as chunk i has arrived, into the stage chunk i - 1 used,
// and the registers hold only the chunk being multiplied, so three blocks
// fit an SM. A lane copies exactly the bytes it later multiplies (its 16 k
// of rows g and g + 8), so no lane waits for another's copies.
//
// Bits: the same deal of K (warp s: chunks s, s + kStreamWarps, ...), the
// same mma steps on the same operands in the same order (stream_chunk), the
// same sum of the warps' partial tiles in warp order. x is read with plain
// loads one chunk ahead (it is small and stays in L2).
//
// The engine takes it with ALGENTA_CUDA_STREAM_RING=1 (mma_gemm_decode.cuh);
// tests/gpu/decode_gemm_timing times it against the stream kernel and
// compares their bits, shape by shape.
#pragma once

#include <cstdint>

#include "dependent_launch.cuh"
#include "mma_gemm_stream.cuh"

namespace algenta::cuda {

inline constexpr int kRingMaxRows = kStreamGroup;

// 16 bytes from global to shared memory, or 16 zero bytes when !valid
// (nothing is read then).
__device__ __forceinline__ void copy16_async(void* shared, const void* global, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto address = static_cast<uint32_t>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global),
               "r"(valid ? 16 : 0));
#else  // sm_75: an ordinary load and store, the same bytes
  *static_cast<uint4*>(shared) = valid ? *static_cast<const uint4*>(global) : make_uint4(0, 0, 0, 0);
#endif
}

__device__ __forceinline__ void commit_async_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most kPending of this thread's copy groups are in flight.
template <int kPending>
__device__ __forceinline__ void wait_async_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

// Shared memory of a block's ring: [warp][stage][16-byte part][lane].
template <int kTile, int kStages>
constexpr int ring_bytes() {
  return kStreamWarps * kStages * (kTile / 4) * 32 * 16;
}

// kTile: columns of w a block multiplies (16: A's rows g and g + 8; 8:
// rows g only; the swiglu form: 8 units, gate and up rows). One tile a
// block. Needs 16-byte aligned rows (gemm_rows_aligned, and the norm
// weights for kNormed) and M <= kRingMaxRows.
template <typename Element, int kTile, int kStages, bool kLo, bool kNormed, StreamOut kOut>
__global__ void __launch_bounds__(kStreamWarps * 32, 3)
    mma_gemm_ring_kernel(const StreamIo io, const Element* __restrict__ w, int M, int N, int K) {
  static_assert(kStages >= 2, "a stage in use and one loading");
  static_assert(kOut != StreamOut::swiglu || kTile == 16, "the gate_up form takes gate and up rows");
  constexpr int kParts = kTile / 4;  // 16-byte parts of a lane's chunk: top row 0, 1; bottom 2, 3
  constexpr int kColumns = kOut == StreamOut::swiglu ? 8 : kTile;
  extern __shared__ uint4 ring[];
  __shared__ float partial[kStreamWarps][32][1][4];
  __shared__ float row_scale[kNormed ? kRingMaxRows : 1];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane / 4;  // A's rows g, g + 8 (columns of w); B's column g (a row of x)
  const int t = lane % 4;  // the quad: which 16 k of a chunk
  const int n0 = blockIdx.x * kColumns;
  uint4* const stages = ring + warp * kStages * kParts * 32;
  const Element* const w_top = stream_top_row<Element, kTile, kOut>(w, n0, g, N, K);
  const Element* const w_bottom = stream_bottom_row<Element, kTile, kOut>(w, n0, g, N, K);
  const float* const x_row = g < M ? io.x + static_cast<int64_t>(g) * K : nullptr;
  const int chunks = (K + kStreamChunk - 1) / kStreamChunk;
  const int count = chunks > warp ? (chunks - warp + kStreamWarps - 1) / kStreamWarps : 0;
  const auto k_of = [&](int i) { return (warp + i * kStreamWarps) * kStreamChunk + 16 * t; };
  // Chunk i of this warp's share into stage i % kStages; a group per call,
  // empty past the share, so that the waits count alike for every warp.
  const auto issue = [&](int i) {
    if (i < count) {
      const int k = k_of(i);
      uint4* stage = stages + (i % kStages) * kParts * 32;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const bool valid = k + 8 * h < K;  // K % 8 == 0: a part is all in or all out
        copy16_async(stage + h * 32 + lane, w_top != nullptr ? w_top + k + 8 * h : w,
                     valid && w_top != nullptr);
        if constexpr (kTile == 16) {
          copy16_async(stage + (2 + h) * 32 + lane, w_bottom != nullptr ? w_bottom + k + 8 * h : w,
                       valid && w_bottom != nullptr);
        }
      }
    }
    commit_async_copies();
  };
  // x (and the norm weights) of chunk i, read one chunk ahead.
  const auto load_x = [&](int i, Sixteen<float>& xv, Sixteen<float>& weight) {
    const int k = k_of(i);
    const int valid = i < count ? K - k : 0;
    load16<float, true>(x_row != nullptr && valid > 0 ? x_row + k : io.x, x_row != nullptr ? valid : 0, xv);
    if constexpr (kNormed) load_norm_weight<true>(io, k, valid, weight);
  };

  // Weights are constant: the first stages load while the kernel ahead runs.
  allow_next_kernel();
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) issue(i);
  wait_for_previous_kernel();
  if constexpr (kNormed) compute_row_scales<kRingMaxRows>(io, row_scale, M, K, warp, lane);
  Sixteen<float> xv[1], weight;
  load_x(0, xv[0], weight);
  float c[1][4] = {};
  for (int i = 0; i < count; ++i) {
    wait_async_copies<kStages - 2>();  // chunk i has arrived
    issue(i + kStages - 1);            // into the stage chunk i - 1 used
    Sixteen<float> x_next, weight_next;
    load_x(i + 1, x_next, weight_next);
    Sixteen<Element> top, bottom;
    const uint4* stage = stages + (i % kStages) * kParts * 32;
    top.raw[0] = stage[lane];
    top.raw[1] = stage[32 + lane];
    if constexpr (kTile == 16) {
      bottom.raw[0] = stage[64 + lane];
      bottom.raw[1] = stage[96 + lane];
    }
    if constexpr (kNormed) apply_norm(xv, weight, row_scale, 0, g);
    stream_chunk<Element, kTile, 1, kLo>(c, top, bottom, xv);
    xv[0] = x_next;
    if constexpr (kNormed) weight = weight_next;
  }
  wait_async_copies<0>();
  finish_stream_tile<kTile, 1, kOut>(io, partial, c, n0, 0, M, N);
}

template <typename Element, int kTile, int kStages, bool kLo, bool kNormed, StreamOut kOut>
void launch_mma_gemm_ring_tile(const StreamIo& io, const Element* w, int M, int N, int K,
                               cudaStream_t stream) {
  const auto kernel = mma_gemm_ring_kernel<Element, kTile, kStages, kLo, kNormed, kOut>;
  constexpr int bytes = ring_bytes<kTile, kStages>();
  // Past 48 KB a kernel's dynamic shared memory needs this once.
  static const bool configured = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                         cudaSharedmemCarveoutMaxShared);
    return true;
  }();
  (void)configured;
  const int columns = kOut == StreamOut::swiglu ? 8 : kTile;
  launch_dependent_shared(kernel, dim3((N + columns - 1) / columns), dim3(kStreamWarps * 32), bytes,
                          stream, io, w, M, N, K);
}

// The ring's stages: 8 for 8-column tiles, 4 for 16 (64 KB a block: three
// blocks an SM).
inline constexpr int kRingStages8 = 8;
inline constexpr int kRingStages16 = 4;

// The stream kernel's forms for M <= kRingMaxRows with 16-byte aligned rows,
// its tile width for N.
template <typename Element, bool kLo, bool kNormed, StreamOut kOut, int kStages8 = kRingStages8,
          int kStages16 = kRingStages16>
void launch_mma_gemm_ring_io(const StreamIo& io, const Element* w, int M, int N, int K,
                             cudaStream_t stream) {
  if (kOut == StreamOut::swiglu || N >= 256 * 16)
    launch_mma_gemm_ring_tile<Element, 16, kStages16, kLo, kNormed, kOut>(io, w, M, N, K, stream);
  else if constexpr (kOut != StreamOut::swiglu)
    launch_mma_gemm_ring_tile<Element, 8, kStages8, kLo, kNormed, kOut>(io, w, M, N, K, stream);
}

// y = x w^T, store form (for timing against the stream kernel).
template <typename Element, bool kLo, int kStages8, int kStages16>
void launch_mma_gemm_ring(const float* x, const Element* w, float* y, int M, int N, int K,
                          cudaStream_t stream) {
  StreamIo io;
  io.x = x;
  io.y = y;
  launch_mma_gemm_ring_io<Element, kLo, false, StreamOut::store, kStages8, kStages16>(io, w, M, N, K,
                                                                                    stream);
}

}  // namespace algenta::cuda
