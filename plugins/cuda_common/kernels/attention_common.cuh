// What every attention kernel shares: the kv head a query head reads (GQA:
// consecutive query heads share one) and the rows of a tile past the pass.
#pragma once

#include "engine_layout.hpp"

#ifndef ALGENTA_CUDA_PLANTED_BUG
#define ALGENTA_CUDA_PLANTED_BUG 0
#endif

namespace algenta::cuda {

__device__ __forceinline__ int kv_head_of(int head, const HeadShape& shape) {
#if ALGENTA_CUDA_PLANTED_BUG == 2
  return head % shape.kv_heads;  // planted: interleaved instead of grouped
#else
  return head / (shape.heads / shape.kv_heads);
#endif
}

// The first query head that reads kv head `kv_head`.
__device__ __forceinline__ int first_head_of(int kv_head, const HeadShape& shape) {
#if ALGENTA_CUDA_PLANTED_BUG == 2
  return kv_head;
#else
  return kv_head * (shape.heads / shape.kv_heads);
#endif
}

// Row `index` of the pass, or a padding row (position -1) past its end.
__device__ __forceinline__ RowMeta row_or_padding(const RowMeta* rows, int row_count, int index) {
  return index < row_count ? rows[index] : RowMeta{0, -1, -1, 0};
}

}  // namespace algenta::cuda
