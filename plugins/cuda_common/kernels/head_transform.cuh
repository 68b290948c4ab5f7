// What one warp does to one head of a row's fused q/k/v projection before
// attention reads it, in the reference's order: the bias, the per-head RMS
// norm (qwen3's q/k norms) and RoPE; for a key head also the value's bias.
// qkv_rope_cache (prefill) and decode attention (which does it in its own
// prologue) share it, so the two give the same bits. Lane l owns elements
// l, l + 32, ... of the head; rotate_half pairs element i with i + head_dim
// / 2, which another lane owns, so the normed head passes through `scratch`
// (head_dim floats of shared memory, the warp's own).
#pragma once

#include <cuda_bf16.h>

#include "engine_layout.hpp"
#include "warp_reduce.cuh"

#ifndef ALGENTA_CUDA_PLANTED_BUG
#define ALGENTA_CUDA_PLANTED_BUG 0
#endif

namespace algenta::cuda {

// The angle a row's head is rotated by, and the cache slot its key and
// value go to: the row's position (the planted engines move one of them).
__device__ __forceinline__ int rope_angle_position(const RowMeta& row, bool is_query) {
#if ALGENTA_CUDA_PLANTED_BUG == 1
  if (is_query) return row.position + 1;  // planted: the query rotated one position late
#endif
  return row.position;
}
__device__ __forceinline__ int cache_slot_position(const RowMeta& row) {
#if ALGENTA_CUDA_PLANTED_BUG == 3
  // planted: a continuing chunk's first token lands one slot early
  if (row.position == row.chunk_start && row.position > 0) return row.position - 1;
#endif
  return row.position;
}

// What attention reads: the value itself (exact), or the nearest bf16 value
// (the bf16 policy's attention inputs and KV cache, held in fp32 storage).
__device__ __forceinline__ float attention_input(float v, bool bf16_inputs) {
  return bf16_inputs ? __bfloat162float(__float2bfloat16_rn(v)) : v;
}

// The lane's share of a head's constant inputs: loaded before the kernel
// ahead finishes (dependent_launch.cuh), as none of it is written in a pass.
struct HeadTables {
  float bias[kMaxHeadDimPerLane];
  float norm[kMaxHeadDimPerLane];
  float cos[kMaxHeadDimPerLane];
  float sin[kMaxHeadDimPerLane];
  float value_bias[kMaxHeadDimPerLane];
};

// Head `head` (query heads first, then kv heads) of a row rotated by
// `angle_position`.
__device__ __forceinline__ HeadTables load_head_tables(const HeadTransform& t, const HeadShape& shape,
                                                       int head, int angle_position) {
  const int lane = threadIdx.x % 32;
  const int hd = shape.head_dim;
  const int half = hd / 2;
  const bool is_query = head < shape.heads;
  const int offset = head * hd;  // in [q | k | v]: the kv heads follow the query heads
  const int kv_dim = shape.kv_heads * hd;
  const float* norm = is_query ? t.q_norm : t.k_norm;
  const float* cos_row = t.rope_cos + static_cast<int64_t>(angle_position) * half;
  const float* sin_row = t.rope_sin + static_cast<int64_t>(angle_position) * half;
  HeadTables tables;
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    const int pair = d < half ? d : d - half;
    tables.bias[i] = t.bias != nullptr ? t.bias[offset + d] : 0.f;
    tables.norm[i] = norm != nullptr ? norm[d] : 0.f;
    tables.cos[i] = cos_row[pair];
    tables.sin[i] = sin_row[pair];
    tables.value_bias[i] = t.bias != nullptr && !is_query ? t.bias[offset + kv_dim + d] : 0.f;
  }
  return tables;
}

// The head's raw projection `x` (and for a key head its value, `v_source`)
// read into registers: the caller issues these loads together. `lo` (may be
// null): how far the lo part of the projection lies after x, where the GEMM
// left the two halves' products apart; they are added as the accumulating
// GEMM adds them.
struct HeadInputs {
  float x[kMaxHeadDimPerLane];
  float value[kMaxHeadDimPerLane];
};
__device__ __forceinline__ HeadInputs load_head_inputs(const float* x, const float* v_source, int hd,
                                                       int64_t lo_offset = 0) {
  const int lane = threadIdx.x % 32;
  HeadInputs in;
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    in.x[i] = x[d];
    if (v_source != nullptr) in.value[i] = v_source[d];
    if (lo_offset != 0) {
      in.x[i] = __fadd_rn(in.x[i], x[lo_offset + d]);
      if (v_source != nullptr) in.value[i] = __fadd_rn(in.value[i], v_source[lo_offset + d]);
    }
  }
  return in;
}

// rotated = RoPE(norm(x + bias)) and, for a key head, value = v + value
// bias, each as attention reads it (attention_input). `has_norm`: the
// head's norm weights exist.
__device__ __forceinline__ void transform_head(HeadInputs& in, const HeadTables& tables, bool is_key,
                                               bool has_bias, bool has_norm, float eps, int hd,
                                               bool bf16_inputs, float* scratch,
                                               float (&rotated)[kMaxHeadDimPerLane],
                                               float (&value)[kMaxHeadDimPerLane]) {
  const int lane = threadIdx.x % 32;
  const int half = hd / 2;
  float square_sum = 0.f;
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    if (lane + 32 * i >= hd) break;
    const float v = has_bias ? __fadd_rn(in.x[i], tables.bias[i]) : in.x[i];
    in.x[i] = v;
    square_sum = __fadd_rn(square_sum, __fmul_rn(v, v));
  }
  if (has_norm) {
    const float scale = 1.0f / sqrtf(warp_sum(square_sum) / static_cast<float>(hd) + eps);
#pragma unroll
    for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
      if (lane + 32 * i >= hd) break;
      in.x[i] = __fmul_rn(__fmul_rn(in.x[i], scale), tables.norm[i]);
    }
  }
  __syncwarp();  // scratch's previous readers are done
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d < hd) scratch[d] = in.x[i];
  }
  __syncwarp();
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    const int pair = d < half ? d : d - half;
    const float first = scratch[pair];
    const float second = scratch[pair + half];
    rotated[i] = attention_input(
        d < half ? __fsub_rn(__fmul_rn(first, tables.cos[i]), __fmul_rn(second, tables.sin[i]))
                 : __fadd_rn(__fmul_rn(second, tables.cos[i]), __fmul_rn(first, tables.sin[i])),
        bf16_inputs);
    if (is_key) {
      value[i] = attention_input(
          has_bias ? __fadd_rn(in.value[i], tables.value_bias[i]) : in.value[i], bf16_inputs);
    }
  }
}

// Element d of the cache row (keys or values) of `position` in `slot`.
__device__ __forceinline__ float* cache_row(float* base, const PagedKv& kv, int slot, int kv_head,
                                            int position) {
  const int block = kv.block_tables[slot * kv.max_blocks + position / kKvBlockTokens];
  return base + ((static_cast<int64_t>(block) * kv.kv_heads + kv_head) * kKvBlockTokens +
                 position % kKvBlockTokens) *
                    kv.head_dim;
}

}  // namespace algenta::cuda
