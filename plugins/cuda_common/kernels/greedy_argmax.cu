// The greedy choice on the device, so a decode step returns one id per row
// instead of its vocab-wide logits: per row, the index of the largest logit,
// ties to the lowest index, NaN never chosen, 0 when no logit beats -inf -
// decoder::argmax_lowest's answer exactly. Comparisons only, no arithmetic,
// so the order of the reduction cannot change the answer. Two passes: 32
// blocks a row each take a contiguous slice (the whole card reads the
// logits, not one SM), then one warp a row takes the 32 slices' best.
#include <climits>
#include <cmath>

#include "launch.hpp"

namespace algenta::cuda {
namespace {

constexpr int kArgmaxThreads = 256;
static_assert(kArgmaxSlices == 32, "one lane a slice in argmax_rows_kernel");

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

// The block's best over its slice [begin, end) of the row.
__device__ Best block_best(const float* row, int begin, int end) {
  __shared__ Best warp_results[kArgmaxThreads / 32];
  // Each thread's first index holding its largest value (strictly greater
  // replaces), as argmax_lowest scans; INT_MAX: nothing beat -inf.
  Best best{-INFINITY, INT_MAX};
  for (int i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const float v = row[i];
    if (v > best.value) best = {v, i};
  }
  best = warp_best(best);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (lane == 0) warp_results[warp] = best;
  __syncthreads();
  best = lane < kArgmaxThreads / 32 ? warp_results[lane] : Best{-INFINITY, INT_MAX};
  return warp_best(best);
}

// Block (slice, row): slice `slice` of the row's logits into partials[row][slice].
__global__ void __launch_bounds__(kArgmaxThreads)
    argmax_slices_kernel(const float* __restrict__ logits, int vocab, Best* __restrict__ partials) {
  const float* row = logits + static_cast<std::int64_t>(blockIdx.y) * vocab;
  const int per_slice = (vocab + kArgmaxSlices - 1) / kArgmaxSlices;
  const int begin = min(vocab, blockIdx.x * per_slice);
  const Best best = block_best(row, begin, min(vocab, begin + per_slice));
  if (threadIdx.x == 0) partials[blockIdx.y * kArgmaxSlices + blockIdx.x] = best;
}

// One warp a row: lane s holds slice s's best.
__global__ void argmax_rows_kernel(const Best* __restrict__ partials, std::int32_t* __restrict__ tokens) {
  const Best best = warp_best(partials[blockIdx.x * kArgmaxSlices + threadIdx.x]);
  if (threadIdx.x == 0) tokens[blockIdx.x] = best.index == INT_MAX ? 0 : best.index;
}

}  // namespace

cudaError_t launch_greedy_argmax(const float* logits, int rows, int vocab, void* partials,
                                 std::int32_t* tokens, cudaStream_t stream) {
  if (rows < 0 || vocab <= 0) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  static_assert(sizeof(Best) == kArgmaxPartialBytes / kArgmaxSlices);
  Best* best = static_cast<Best*>(partials);
  argmax_slices_kernel<<<dim3(kArgmaxSlices, rows), kArgmaxThreads, 0, stream>>>(logits, vocab, best);
  argmax_rows_kernel<<<rows, 32, 0, stream>>>(best, tokens);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
