// After the fused q/k/v projection: biases, the per-head q/k RMSNorm (qwen3)
// and RoPE, in the reference's order; the query stays in place, the key and
// value go to the row's slot in the paged cache. One warp per (row, head);
// the head passes through shared memory because rotate_half pairs element i
// with i + head_dim / 2, which another lane may own. A warp issues all of its
// loads first: the kernel is a few memory trips, not arithmetic.
#include <cuda_bf16.h>

#include "dependent_launch.cuh"
#include "launch.hpp"
#include "warp_reduce.cuh"

#ifndef ALGENTA_CUDA_PLANTED_BUG
#define ALGENTA_CUDA_PLANTED_BUG 0
#endif

namespace algenta::cuda {
namespace {

constexpr int kHeadsPerBlock = 4;

__device__ __forceinline__ float* cache_row(float* base, const PagedKv& kv, int slot, int kv_head,
                                            int position) {
  const int block = kv.block_tables[slot * kv.max_blocks + position / kKvBlockTokens];
  return base + ((static_cast<int64_t>(block) * kv.kv_heads + kv_head) * kKvBlockTokens +
                 position % kKvBlockTokens) *
                    kv.head_dim;
}

// What attention reads: the value itself (exact), or the nearest bf16 value
// (the bf16 policy's attention inputs and KV cache, held in fp32 storage).
__device__ __forceinline__ float attention_input(float v, bool bf16_inputs) {
  return bf16_inputs ? __bfloat162float(__float2bfloat16_rn(v)) : v;
}

__global__ void __launch_bounds__(kHeadsPerBlock * 32)
    qkv_rope_cache_kernel(float* __restrict__ qkv, const float* __restrict__ bias,
                          const float* __restrict__ q_norm, const float* __restrict__ k_norm,
                          float eps, const float* __restrict__ rope_cos,
                          const float* __restrict__ rope_sin, const RowMeta* __restrict__ rows,
                          HeadShape shape, PagedKv kv, bool bf16_inputs) {
  __shared__ float head_values[kHeadsPerBlock][kMaxHeadDim];
  allow_next_kernel();
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int head = blockIdx.y * kHeadsPerBlock + warp;
  const RowMeta row = rows[blockIdx.x];
  const int hd = shape.head_dim;
  const int q_dim = shape.heads * hd;
  const int kv_dim = shape.kv_heads * hd;
  if (head >= shape.heads + shape.kv_heads || row.position < 0) return;

  const bool is_query = head < shape.heads;
  const int kv_head = head - shape.heads;
  const int offset = is_query ? head * hd : q_dim + kv_head * hd;
  float* x = qkv + static_cast<int64_t>(blockIdx.x) * (q_dim + 2 * kv_dim) + offset;
  const float* norm = is_query ? q_norm : k_norm;
  const float* v_source = x + kv_dim;
  float* values = head_values[warp];

  int angle_position = row.position;
#if ALGENTA_CUDA_PLANTED_BUG == 1
  if (is_query) angle_position += 1;  // planted: the query rotated one position late
#endif
  int slot_position = row.position;
#if ALGENTA_CUDA_PLANTED_BUG == 3
  // planted: a continuing chunk's first token lands one slot early
  if (row.position == row.chunk_start && row.position > 0) slot_position -= 1;
#endif
  const int half = hd / 2;
  const float* cos_row = rope_cos + static_cast<int64_t>(angle_position) * half;
  const float* sin_row = rope_sin + static_cast<int64_t>(angle_position) * half;

  // Every load of the head is issued before any value is used: one wait for
  // memory instead of one per step. The arithmetic below is unchanged. The
  // tables come first: they may be read before the kernel ahead has finished
  // (dependent_launch.cuh); q, k and v only after.
  float in_bias[kMaxHeadDimPerLane], norm_w[kMaxHeadDimPerLane];
  float cos_v[kMaxHeadDimPerLane], sin_v[kMaxHeadDimPerLane], value_bias[kMaxHeadDimPerLane];
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    const int pair = d < half ? d : d - half;
    in_bias[i] = bias != nullptr ? bias[offset + d] : 0.f;
    norm_w[i] = norm != nullptr ? norm[d] : 0.f;
    cos_v[i] = cos_row[pair];
    sin_v[i] = sin_row[pair];
    value_bias[i] = bias != nullptr && !is_query ? bias[offset + kv_dim + d] : 0.f;
  }
  float* key = is_query ? nullptr : cache_row(kv.keys, kv, row.slot, kv_head, slot_position);
  float* value = is_query ? nullptr : cache_row(kv.values, kv, row.slot, kv_head, slot_position);
  wait_for_previous_kernel();
  float in[kMaxHeadDimPerLane], value_in[kMaxHeadDimPerLane];
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    in[i] = x[d];
    if (!is_query) value_in[i] = v_source[d];
  }

  float square_sum = 0.f;
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    const float v = bias != nullptr ? __fadd_rn(in[i], in_bias[i]) : in[i];
    in[i] = v;
    square_sum = __fadd_rn(square_sum, __fmul_rn(v, v));
  }
  if (norm != nullptr) {
    const float scale = 1.0f / sqrtf(warp_sum(square_sum) / static_cast<float>(hd) + eps);
#pragma unroll
    for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
      if (lane + 32 * i >= hd) break;
      in[i] = __fmul_rn(__fmul_rn(in[i], scale), norm_w[i]);
    }
  }
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d < hd) values[d] = in[i];
  }
  __syncwarp();

  float rotated[kMaxHeadDimPerLane];
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    const int pair = d < half ? d : d - half;
    const float first = values[pair];
    const float second = values[pair + half];
    rotated[i] = d < half ? __fsub_rn(__fmul_rn(first, cos_v[i]), __fmul_rn(second, sin_v[i]))
                          : __fadd_rn(__fmul_rn(second, cos_v[i]), __fmul_rn(first, sin_v[i]));
  }

#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    if (is_query) {
      x[d] = attention_input(rotated[i], bf16_inputs);
    } else {
      key[d] = attention_input(rotated[i], bf16_inputs);
      value[d] = attention_input(
          bias != nullptr ? __fadd_rn(value_in[i], value_bias[i]) : value_in[i], bf16_inputs);
    }
  }
}

}  // namespace

cudaError_t launch_qkv_rope_cache(float* qkv, const float* bias, const float* q_norm,
                                  const float* k_norm, float eps, const float* rope_cos,
                                  const float* rope_sin, const RowMeta* rows, int row_count,
                                  HeadShape shape, PagedKv kv, bool bf16_inputs,
                                  cudaStream_t stream) {
  if (row_count == 0) return cudaSuccess;
  if (shape.head_dim > kMaxHeadDim || shape.head_dim % 2 != 0) return cudaErrorInvalidValue;
  const dim3 grid(row_count, (shape.heads + shape.kv_heads + kHeadsPerBlock - 1) / kHeadsPerBlock);
  return launch_dependent(qkv_rope_cache_kernel, grid, kHeadsPerBlock * 32, stream, qkv, bias,
                          q_norm, k_norm, eps, rope_cos, rope_sin, rows, shape, kv, bf16_inputs);
}

}  // namespace algenta::cuda
