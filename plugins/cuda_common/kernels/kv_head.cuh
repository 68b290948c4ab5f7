// The kv head a query head reads (GQA: consecutive query heads share one),
// for every attention kernel.
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

}  // namespace algenta::cuda
