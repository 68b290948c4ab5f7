// After the fused q/k/v projection of a prefill pass: biases, the per-head
// q/k RMSNorm (qwen3) and RoPE, in the reference's order (head_transform.cuh);
// the query stays in place, the key and value go to the row's slot in the
// paged cache. One warp per (row, head). A warp issues all of its loads
// first: the kernel is a few memory trips, not arithmetic. (Decode attention
// does the same in its own prologue.)
#include "dependent_launch.cuh"
#include "head_transform.cuh"
#include "launch.hpp"

namespace algenta::cuda {
namespace {

constexpr int kHeadsPerBlock = 4;

__global__ void __launch_bounds__(kHeadsPerBlock * 32)
    qkv_rope_cache_kernel(float* __restrict__ qkv, const float* __restrict__ qkv_lo,
                          HeadTransform transform,
                          const RowMeta* __restrict__ rows, HeadShape shape, PagedKv kv) {
  __shared__ float head_values[kHeadsPerBlock][kMaxHeadDim];
  allow_next_kernel();
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int head = blockIdx.y * kHeadsPerBlock + warp;
  const RowMeta row = rows[blockIdx.x];
  const int hd = shape.head_dim;
  const int kv_dim = shape.kv_heads * hd;
  if (head >= shape.heads + shape.kv_heads || row.position < 0) return;

  const bool is_query = head < shape.heads;
  const int kv_head = head - shape.heads;
  const int64_t offset = static_cast<int64_t>(blockIdx.x) * (shape.heads * hd + 2 * kv_dim) + head * hd;
  float* x = qkv + offset;
  const int64_t lo_offset = qkv_lo != nullptr ? qkv_lo - qkv : 0;  // the lo part's rows

  // The tables may be read before the kernel ahead has finished
  // (dependent_launch.cuh); q, k and v only after.
  const HeadTables tables = load_head_tables(transform, shape, head, rope_angle_position(row, is_query));
  const int slot_position = cache_slot_position(row);
  float* key = is_query ? nullptr : cache_row(kv.keys, kv, row.slot, kv_head, slot_position);
  float* value = is_query ? nullptr : cache_row(kv.values, kv, row.slot, kv_head, slot_position);
  wait_for_previous_kernel();
  HeadInputs in = load_head_inputs(x, is_query ? nullptr : x + kv_dim, hd, lo_offset);

  float rotated[kMaxHeadDimPerLane], value_out[kMaxHeadDimPerLane];
  const float* norm = is_query ? transform.q_norm : transform.k_norm;
  transform_head(in, tables, !is_query, transform.bias != nullptr, norm != nullptr, transform.eps,
                 hd, transform.bf16_inputs, head_values[warp], rotated, value_out);
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    if (is_query) {
      x[d] = rotated[i];
    } else {
      key[d] = rotated[i];
      value[d] = value_out[i];
    }
  }
}

}  // namespace

cudaError_t launch_qkv_rope_cache(float* qkv, const float* qkv_lo, const HeadTransform& transform,
                                  const RowMeta* rows, int row_count, HeadShape shape, PagedKv kv,
                                  cudaStream_t stream) {
  if (row_count == 0) return cudaSuccess;
  if (shape.head_dim > kMaxHeadDim || shape.head_dim % 2 != 0) return cudaErrorInvalidValue;
  const dim3 grid(row_count, (shape.heads + shape.kv_heads + kHeadsPerBlock - 1) / kHeadsPerBlock);
  return launch_dependent(qkv_rope_cache_kernel, grid, kHeadsPerBlock * 32, stream, qkv, qkv_lo,
                          transform, rows, shape, kv);
}

}  // namespace algenta::cuda
