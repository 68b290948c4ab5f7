// The greedy choice on the device, so a decode step returns one id per row
// instead of its vocab-wide logits: per row, the index of the largest logit,
// ties to the lowest index, NaN never chosen, 0 when no logit beats -inf -
// decoder::argmax_lowest's answer exactly. Comparisons only, no arithmetic,
// so the order of the reduction cannot change the answer. One block per row.
#include <climits>
#include <cmath>

#include "launch.hpp"

namespace algenta::cuda {
namespace {

constexpr int kArgmaxThreads = 1024;

struct Best {
  float value;
  int index;
};

// The better of two candidates: the larger value, then the lower index.
// Candidates never hold NaN (a NaN is never taken below).
__device__ __forceinline__ Best better(Best a, Best b) {
  return b.value > a.value || (b.value == a.value && b.index < a.index) ? b : a;
}

__device__ __forceinline__ Best warp_best(Best best) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const Best other{__shfl_down_sync(0xffffffffu, best.value, offset),
                     __shfl_down_sync(0xffffffffu, best.index, offset)};
    best = better(best, other);
  }
  return best;
}

__global__ void __launch_bounds__(kArgmaxThreads)
    greedy_argmax_kernel(const float* __restrict__ logits, int vocab, std::int32_t* __restrict__ tokens) {
  __shared__ Best warp_results[kArgmaxThreads / 32];
  const float* row = logits + static_cast<std::int64_t>(blockIdx.x) * vocab;
  // Each thread's first index holding its largest value (strictly greater
  // replaces), as argmax_lowest scans; INT_MAX: nothing beat -inf.
  Best best{-INFINITY, INT_MAX};
  for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
    const float v = row[i];
    if (v > best.value) best = {v, i};
  }
  best = warp_best(best);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (lane == 0) warp_results[warp] = best;
  __syncthreads();
  if (warp != 0) return;
  best = lane < kArgmaxThreads / 32 ? warp_results[lane] : Best{-INFINITY, INT_MAX};
  best = warp_best(best);
  if (lane == 0) tokens[blockIdx.x] = best.index == INT_MAX ? 0 : best.index;
}

}  // namespace

cudaError_t launch_greedy_argmax(const float* logits, int rows, int vocab, std::int32_t* tokens,
                                 cudaStream_t stream) {
  if (rows < 0 || vocab <= 0) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  greedy_argmax_kernel<<<rows, kArgmaxThreads, 0, stream>>>(logits, vocab, tokens);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
