// Warp-wide reductions with a fixed butterfly: every lane ends with the same
// bits, and the tree's shape depends on nothing but the warp width.
#pragma once

namespace algenta::cuda {

__device__ __forceinline__ float warp_sum(float value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value = __fadd_rn(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

__device__ __forceinline__ float warp_max(float value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

}  // namespace algenta::cuda
