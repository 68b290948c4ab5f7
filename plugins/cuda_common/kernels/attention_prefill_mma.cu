// Prefill attention on tensor cores (bf16 mma.sync, sm_80 and later), flash
// style: the keys of a row are visited in the fixed blocks of kKvBlockTokens
// from position 0 with an online softmax, as the CUDA-core kernels do, but
// the scores Q.K^T and the sums P.V of a block are mma.sync m16n8k16 tiles.
//
// Precision (the exact policy): every fp32 operand x enters as two bf16
// halves hi = bf16(x), lo = bf16(x - hi), and a product a.b is taken as
// hi.hi + lo.hi + hi.lo (a's halves first), accumulated in fp32: about 16
// of fp32's 24 significand bits of each input, as the GEMMs carry.
//
// Work split: a thread block serves 64 query rows (4 warps x 16) of one
// query head. For each sequence among its rows (in the order its first row
// appears) it copies each key/value block with cp.async, the next block's
// copy running while the warps compute the current one, and converts it
// once to bf16 halves for all four warps. A warp whose rows need no key of
// a block skips it.
//
// Bits: a row's scores, maxima, sums and accumulators see only its own
// query, its own keys 0..position and the fixed block order. Keys past a
// row's position (or of another sequence) get weight exactly 0 and leave
// its state unchanged (rescale exp(0) = 1, 0 added), so the result does not
// depend on the other rows of the tile, the batch or the chunking.
#include <cuda_bf16.h>

#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "attention_prefill_mma.hpp"
#include "attention_common.cuh"
#include "fused_inputs.cuh"
#include "launch.hpp"

namespace algenta::cuda {
namespace {

// Without bf16 mma.sync (sm_75's device pass) only the kernel's shell exists.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define ALGENTA_PREFILL_MMA 1
#endif

constexpr int kWarps = 4;
constexpr int kRowsPerWarp = 16;
constexpr int kRowsPerBlock = kWarps * kRowsPerWarp;
constexpr int kKeys = kKvBlockTokens;   // 32 keys per staged block
static_assert(kKeys == 32, "n-tiles of 8 keys, k-steps of 16 keys");

constexpr int kKeyPitch = 8;            // bf16 padding per staged row: conflict-free reads
constexpr int kValuePitch = kKeys + 8;  // transposed values: [head_dim][keys + 8]

template <int kHeadDim>
struct Stage {
  // Keys as rows [key][head_dim], values transposed [head_dim][key], so that
  // both B operands read two consecutive bf16 along k in one 32-bit load.
  __nv_bfloat16 key_hi[kKeys][kHeadDim + kKeyPitch];
  __nv_bfloat16 key_lo[kKeys][kHeadDim + kKeyPitch];
  __nv_bfloat16 value_hi[kHeadDim][kValuePitch];
  __nv_bfloat16 value_lo[kHeadDim][kValuePitch];
};

// A block's keys and values as they are in the cache (fp32 rows padded by
// 4 floats: 16-byte aligned, fewer bank conflicts), copied with cp.async so
// that the copy of block b + 1 runs while the warps compute block b.
template <int kHeadDim>
struct Raw {
  float keys[kKeys][kHeadDim + 4];
  float values[kKeys][kHeadDim + 4];
};

// The kernel's dynamic shared memory.
template <int kHeadDim>
struct Shared {
  Stage<kHeadDim> stage;
  Raw<kHeadDim> raw;
};

#ifdef ALGENTA_PREFILL_MMA
struct Halves {
  uint32_t hi;
  uint32_t lo;
};

__device__ __forceinline__ uint32_t pack_bf16(__nv_bfloat16 low, __nv_bfloat16 high) {
  return static_cast<uint32_t>(__bfloat16_as_ushort(low)) |
         (static_cast<uint32_t>(__bfloat16_as_ushort(high)) << 16);
}

// (a, b) as bf16 pairs: hi = bf16(x), lo = bf16(x - hi); a in the low half.
__device__ __forceinline__ Halves split_pair(float a, float b) {
  const __nv_bfloat16 a_hi = __float2bfloat16_rn(a);
  const __nv_bfloat16 b_hi = __float2bfloat16_rn(b);
  const __nv_bfloat16 a_lo = __float2bfloat16_rn(__fsub_rn(a, __bfloat162float(a_hi)));
  const __nv_bfloat16 b_lo = __float2bfloat16_rn(__fsub_rn(b, __bfloat162float(b_hi)));
  return {pack_bf16(a_hi, b_hi), pack_bf16(a_lo, b_lo)};
}

// c += A (16 x 16, row) * B (16 x 8, col), bf16 in, fp32 accumulate.
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                          uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The planted attn_lo engine drops the lo halves under the exact policy.
constexpr bool kPlantedDropsLo = ALGENTA_CUDA_PLANTED_BUG == 5;

// c += a.b with both in halves: hi.hi, then lo.hi, then hi.lo (kLo: the
// exact policy); hi.hi alone (the bf16 policy).
template <bool kLo>
__device__ __forceinline__ void mma_halves(float (&c)[4], const uint32_t (&a_hi)[4],
                                           const uint32_t (&a_lo)[4], Halves b0, Halves b1) {
  mma_16816(c, a_hi, b0.hi, b1.hi);
  if constexpr (kLo && !kPlantedDropsLo) {
    mma_16816(c, a_lo, b0.hi, b1.hi);
    mma_16816(c, a_hi, b0.lo, b1.lo);
  }
}

__device__ __forceinline__ uint32_t load_pair(const __nv_bfloat16* p) {
  return *reinterpret_cast<const uint32_t*>(p);
}

// 16 bytes global -> shared, or 16 zero bytes when !valid (nothing read).
__device__ __forceinline__ void copy_async_16(void* shared, const void* global, bool valid) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global),
               "r"(valid ? 16 : 0));
}

// Starts copying keys and values [0, count) of a block into `raw`, zeros past
// count (finite: a weight of 0 times them adds exactly 0).
template <int kHeadDim>
__device__ void start_copy(const float* keys, const float* values, int count, Raw<kHeadDim>& raw) {
  constexpr int kGroups = kHeadDim / 4;  // float4s per row
  for (int i = threadIdx.x; i < kKeys * kGroups; i += kWarps * 32) {
    const int key = i / kGroups;
    const int d = (i % kGroups) * 4;
    const bool valid = key < count;
    copy_async_16(&raw.keys[key][d], valid ? keys + key * kHeadDim + d : keys, valid);
    copy_async_16(&raw.values[key][d], valid ? values + key * kHeadDim + d : values, valid);
  }
  asm volatile("cp.async.commit_group;\n" ::);
}

__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

// The copied block as bf16 halves: keys as rows, values transposed. A thread
// takes the value pair (2p, 2p + 1) at four dims, p running fastest across
// the warp, so each transposed store of a warp hits 32 banks.
template <int kHeadDim>
__device__ void convert_block(const Raw<kHeadDim>& raw, Stage<kHeadDim>& stage) {
  constexpr int kGroups = kHeadDim / 4;
  for (int i = threadIdx.x; i < kKeys * kGroups; i += kWarps * 32) {
    const int key = i / kGroups;
    const int d = (i % kGroups) * 4;
    const float4 k = *reinterpret_cast<const float4*>(&raw.keys[key][d]);
    const Halves first = split_pair(k.x, k.y);
    const Halves second = split_pair(k.z, k.w);
    *reinterpret_cast<uint2*>(&stage.key_hi[key][d]) = make_uint2(first.hi, second.hi);
    *reinterpret_cast<uint2*>(&stage.key_lo[key][d]) = make_uint2(first.lo, second.lo);
  }
  for (int i = threadIdx.x; i < (kKeys / 2) * kGroups; i += kWarps * 32) {
    const int key = (i % (kKeys / 2)) * 2;
    const int d = (i / (kKeys / 2)) * 4;
    const float4 v0 = *reinterpret_cast<const float4*>(&raw.values[key][d]);
    const float4 v1 = *reinterpret_cast<const float4*>(&raw.values[key + 1][d]);
    const float first[4] = {v0.x, v0.y, v0.z, v0.w};
    const float second[4] = {v1.x, v1.y, v1.z, v1.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const Halves pair = split_pair(first[e], second[e]);
      *reinterpret_cast<uint32_t*>(&stage.value_hi[d + e][key]) = pair.hi;
      *reinterpret_cast<uint32_t*>(&stage.value_lo[d + e][key]) = pair.lo;
    }
  }
}

// One warp's 16 rows: lane (g, t) holds rows g and g + 8 of the C tiles.
template <int kHeadDim>
struct WarpState {
  static constexpr int kSteps = kHeadDim / 16;  // k-steps over head_dim
  static constexpr int kTiles = kHeadDim / 8;   // n-tiles of the output
  uint32_t q_hi[kSteps][4];
  uint32_t q_lo[kSteps][4];
  float out[kTiles][4] = {};
  float max[2] = {-FLT_MAX, -FLT_MAX};  // rows g, g + 8
  float sum[2] = {0.f, 0.f};
};

// max / sum over the quad (the 4 lanes holding one row): the same bits on
// each of them (the two additions pair the same operands on every lane).
__device__ __forceinline__ float quad_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ __forceinline__ float quad_sum(float v) {
  v = __fadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return __fadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 2));
}

// The warp's online-softmax step over the staged block whose first key is at
// position `base`; last[h] is row (g + 8h)'s last visible position here (-1:
// none).
template <int kHeadDim, bool kLo>
__device__ void attend_block(const Stage<kHeadDim>& stage, int base, const int (&last)[2],
                             float scale, WarpState<kHeadDim>& state) {
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  float scores[4][4] = {};  // n-tile j: keys 8j + 2t, +1 of rows g (0, 1), g + 8 (2, 3)
#pragma unroll
  for (int s = 0; s < WarpState<kHeadDim>::kSteps; ++s) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const __nv_bfloat16* hi = &stage.key_hi[8 * j + g][16 * s + 2 * t];
      const __nv_bfloat16* lo = &stage.key_lo[8 * j + g][16 * s + 2 * t];
      mma_halves<kLo>(scores[j], state.q_hi[s], state.q_lo[s], Halves{load_pair(hi), load_pair(lo)},
                 Halves{load_pair(hi + 8), load_pair(lo + 8)});
    }
  }
  float weights[4][4];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float block_max = -FLT_MAX;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const bool visible = base + 8 * j + 2 * t + e <= last[h];
        const float score = visible ? __fmul_rn(scores[j][2 * h + e], scale) : -FLT_MAX;
        scores[j][2 * h + e] = score;
        block_max = fmaxf(block_max, score);
      }
    }
    const float new_max = fmaxf(state.max[h], quad_max(block_max));
    const float rescale = expf(__fsub_rn(state.max[h], new_max));
    float block_sum = 0.f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const bool visible = base + 8 * j + 2 * t + e <= last[h];
        const float weight = visible ? expf(__fsub_rn(scores[j][2 * h + e], new_max)) : 0.f;
        weights[j][2 * h + e] = weight;
        block_sum = __fadd_rn(block_sum, weight);
      }
    }
    state.sum[h] = __fadd_rn(__fmul_rn(state.sum[h], rescale), quad_sum(block_sum));
    state.max[h] = new_max;
#pragma unroll
    for (int n = 0; n < WarpState<kHeadDim>::kTiles; ++n) {
      state.out[n][2 * h] = __fmul_rn(state.out[n][2 * h], rescale);
      state.out[n][2 * h + 1] = __fmul_rn(state.out[n][2 * h + 1], rescale);
    }
  }
  // P (16 rows x 32 keys) . V (32 keys x head_dim), two k-steps of 16 keys.
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    const Halves a0 = split_pair(weights[2 * s][0], weights[2 * s][1]);
    const Halves a1 = split_pair(weights[2 * s][2], weights[2 * s][3]);
    const Halves a2 = split_pair(weights[2 * s + 1][0], weights[2 * s + 1][1]);
    const Halves a3 = split_pair(weights[2 * s + 1][2], weights[2 * s + 1][3]);
    const uint32_t p_hi[4] = {a0.hi, a1.hi, a2.hi, a3.hi};
    const uint32_t p_lo[4] = {a0.lo, a1.lo, a2.lo, a3.lo};
#pragma unroll
    for (int n = 0; n < WarpState<kHeadDim>::kTiles; ++n) {
      const __nv_bfloat16* hi = &stage.value_hi[8 * n + g][16 * s + 2 * t];
      const __nv_bfloat16* lo = &stage.value_lo[8 * n + g][16 * s + 2 * t];
      mma_halves<kLo>(state.out[n], p_hi, p_lo, Halves{load_pair(hi), load_pair(lo)},
                 Halves{load_pair(hi + 8), load_pair(lo + 8)});
    }
  }
}

#endif  // ALGENTA_PREFILL_MMA

template <int kHeadDim, bool kLo>
__global__ void __launch_bounds__(kWarps * 32)
    attention_prefill_mma_kernel(const float* __restrict__ qkv, int qkv_stride,
                                 const RowMeta* __restrict__ rows, int row_count,
                                 HeadShape shape, PagedKv kv, float scale,
                                 float* __restrict__ out, Element* __restrict__ out_hi,
                                 Element* __restrict__ out_lo) {
#ifndef ALGENTA_PREFILL_MMA
  __trap();  // bf16 mma.sync needs sm_80: never launched there (see the launcher)
#else
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Shared<kHeadDim>& shared = *reinterpret_cast<Shared<kHeadDim>*>(shared_bytes);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int head = blockIdx.y;
  const int kv_head = kv_head_of(head, shape);
  const int first_row = blockIdx.x * kRowsPerBlock;
  const int my_rows[2] = {first_row + warp * kRowsPerWarp + g,
                          first_row + warp * kRowsPerWarp + g + 8};
  const RowMeta mine[2] = {row_or_padding(rows, row_count, my_rows[0]),
                           row_or_padding(rows, row_count, my_rows[1])};

  WarpState<kHeadDim> state;
#pragma unroll
  for (int s = 0; s < WarpState<kHeadDim>::kSteps; ++s) {
    float q[2][4] = {};  // rows g, g + 8; dims 16 s + 2 t + {0, 1, 8, 9}
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (mine[h].position < 0) continue;
      const float* source =
          qkv + static_cast<int64_t>(my_rows[h]) * qkv_stride + head * kHeadDim + 16 * s + 2 * t;
      q[h][0] = source[0];
      q[h][1] = source[1];
      q[h][2] = source[8];
      q[h][3] = source[9];
    }
    const Halves a0 = split_pair(q[0][0], q[0][1]);
    const Halves a1 = split_pair(q[1][0], q[1][1]);
    const Halves a2 = split_pair(q[0][2], q[0][3]);
    const Halves a3 = split_pair(q[1][2], q[1][3]);
    state.q_hi[s][0] = a0.hi, state.q_hi[s][1] = a1.hi, state.q_hi[s][2] = a2.hi, state.q_hi[s][3] = a3.hi;
    state.q_lo[s][0] = a0.lo, state.q_lo[s][1] = a1.lo, state.q_lo[s][2] = a2.lo, state.q_lo[s][3] = a3.lo;
  }

  // Each sequence of the block's rows once, in the order its first row
  // appears: thread i < 64 finds whether row i leads its sequence here and
  // the sequence's last position among the block's rows.
  __shared__ int slot_of[kRowsPerBlock];
  __shared__ int position_of[kRowsPerBlock];
  __shared__ int leader_last[kRowsPerBlock];  // -1: row i leads nothing
  if (threadIdx.x < kRowsPerBlock) {
    const RowMeta row = row_or_padding(rows, row_count, first_row + threadIdx.x);
    slot_of[threadIdx.x] = row.slot;
    position_of[threadIdx.x] = row.position;
  }
  __syncthreads();
  if (threadIdx.x < kRowsPerBlock) {
    const int i = threadIdx.x;
    int last_position = position_of[i];
    bool leads = position_of[i] >= 0;
    for (int e = 0; e < kRowsPerBlock && leads; ++e) {
      if (position_of[e] < 0 || slot_of[e] != slot_of[i]) continue;
      if (e < i) leads = false;
      last_position = max(last_position, position_of[e]);
    }
    leader_last[i] = leads ? last_position : -1;
  }
  __syncthreads();
  for (int leader = 0; leader < kRowsPerBlock; ++leader) {
    const int last_position = leader_last[leader];
    if (last_position < 0) continue;
    const int slot = slot_of[leader];
    const int last[2] = {mine[0].position >= 0 && mine[0].slot == slot ? mine[0].position : -1,
                         mine[1].position >= 0 && mine[1].slot == slot ? mine[1].position : -1};
    const int warp_last = __reduce_max_sync(0xffffffffu, max(last[0], last[1]));
    const int blocks = last_position / kKeys + 1;
    const auto copy_block = [&](int b) {
      const int block = kv.block_tables[slot * kv.max_blocks + b];
      const int64_t base = (static_cast<int64_t>(block) * kv.kv_heads + kv_head) * kKeys * kHeadDim;
      start_copy<kHeadDim>(kv.keys + base, kv.values + base,
                           min(kKeys, last_position - b * kKeys + 1), shared.raw);
    };
    __syncthreads();  // the previous sequence's last block is converted
    copy_block(0);
    for (int b = 0; b < blocks; ++b) {
      wait_copies();
      __syncthreads();  // block b is in raw for every thread; the stage is consumed
      convert_block<kHeadDim>(shared.raw, shared.stage);
      __syncthreads();  // the stage is ready; raw is free
      if (b + 1 < blocks) copy_block(b + 1);
      if (warp_last >= b * kKeys) {
        attend_block<kHeadDim, kLo>(shared.stage, b * kKeys, last, scale, state);
      }
    }
  }

#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if (mine[h].position < 0) continue;
    const float inverse_sum = 1.0f / state.sum[h];
    const int64_t base = (static_cast<int64_t>(my_rows[h]) * shape.heads + head) * kHeadDim;
#pragma unroll
    for (int n = 0; n < WarpState<kHeadDim>::kTiles; ++n) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const float v = __fmul_rn(state.out[n][2 * h + i], inverse_sum);
        const int64_t at = base + 8 * n + 2 * t + i;
        if (out_hi != nullptr) store_hi_lo(v, at, out_hi, out_lo);  // the o GEMM's input halves
        else out[at] = v;
      }
    }
  }
#endif
}

}  // namespace

bool prefill_mma_applies(const HeadShape& shape, bool vector_rows) {
  const int hd = shape.head_dim;
  return std::is_same_v<Element, __nv_bfloat16> && vector_rows &&
         (hd == 16 || hd == 32 || hd == 64 || hd == 128);
}

// One kernel per head_dim and policy, allowed its dynamic shared memory
// (over the 48 KiB default at head_dim 128) once.
template <int kHeadDim, bool kLo>
cudaError_t launch_kernel(const float* qkv, int qkv_stride, const RowMeta* rows, int row_count,
                          HeadShape shape, PagedKv kv, float scale, const PrefillOut& out,
                          cudaStream_t stream) {
  constexpr int kBytes = sizeof(Shared<kHeadDim>);
  static const cudaError_t allowed =
      cudaFuncSetAttribute(attention_prefill_mma_kernel<kHeadDim, kLo>,
                           cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
  if (allowed != cudaSuccess) return allowed;
  const dim3 grid((row_count + kRowsPerBlock - 1) / kRowsPerBlock, shape.heads);
  attention_prefill_mma_kernel<kHeadDim, kLo><<<grid, kWarps * 32, kBytes, stream>>>(
      qkv, qkv_stride, rows, row_count, shape, kv, scale, out.values, out.hi, out.lo);
  return cudaGetLastError();
}

template <int kHeadDim>
cudaError_t launch_for_head_dim(const float* qkv, int qkv_stride, const RowMeta* rows,
                                int row_count, HeadShape shape, PagedKv kv, float scale,
                                bool lo_halves, const PrefillOut& out, cudaStream_t stream) {
  return lo_halves
             ? launch_kernel<kHeadDim, true>(qkv, qkv_stride, rows, row_count, shape, kv, scale,
                                             out, stream)
             : launch_kernel<kHeadDim, false>(qkv, qkv_stride, rows, row_count, shape, kv, scale,
                                              out, stream);
}

cudaError_t launch_attention_prefill_mma(const float* qkv, int qkv_stride, const RowMeta* rows,
                                         int row_count, HeadShape shape, PagedKv kv, float scale,
                                         bool lo_halves, const PrefillOut& out,
                                         cudaStream_t stream) {
  switch (shape.head_dim) {
    case 16:
      return launch_for_head_dim<16>(qkv, qkv_stride, rows, row_count, shape, kv, scale,
                                     lo_halves, out, stream);
    case 32:
      return launch_for_head_dim<32>(qkv, qkv_stride, rows, row_count, shape, kv, scale,
                                     lo_halves, out, stream);
    case 64:
      return launch_for_head_dim<64>(qkv, qkv_stride, rows, row_count, shape, kv, scale,
                                     lo_halves, out, stream);
    case 128:
      return launch_for_head_dim<128>(qkv, qkv_stride, rows, row_count, shape, kv, scale,
                                      lo_halves, out, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace algenta::cuda
