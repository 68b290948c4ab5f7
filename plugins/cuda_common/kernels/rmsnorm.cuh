// RMSNorm with fp32 accumulation and a fixed reduction order: one block per
// row, each thread sums a fixed strided slice, then a fixed tree over the
// block. The order depends only on the row length, never on the batch.
#pragma once

#include <cstdint>

namespace algenta::cuda {

inline constexpr int kRmsNormThreads = 256;

// out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * (weight_offset + w[:])
// (weight_offset is 1 for gemma's (1 + w) convention, else 0).
template <typename Element>
__global__ void rmsnorm_kernel(const Element* __restrict__ x, const Element* __restrict__ w,
                               Element* __restrict__ out, int columns, float eps,
                               float weight_offset) {
  __shared__ float partial[kRmsNormThreads];
  const Element* row = x + static_cast<int64_t>(blockIdx.x) * columns;
  Element* out_row = out + static_cast<int64_t>(blockIdx.x) * columns;

  float sum = 0.f;
  for (int c = threadIdx.x; c < columns; c += kRmsNormThreads) {
    const float v = static_cast<float>(row[c]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kRmsNormThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float scale = rsqrtf(partial[0] / static_cast<float>(columns) + eps);
  for (int c = threadIdx.x; c < columns; c += kRmsNormThreads) {
    const float v = static_cast<float>(row[c]) * scale;
    out_row[c] = static_cast<Element>(v * (weight_offset + static_cast<float>(w[c])));
  }
}

}  // namespace algenta::cuda
