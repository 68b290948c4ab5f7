// Embedding lookup and the fused residual-add + RMSNorm. fp32 residual
// stream; one block per row; each thread sums a fixed strided slice, then a
// fixed tree over the block, so a row's bits depend on its length alone.
#include <cuda_bf16.h>

#include "fused_inputs.cuh"
#include "launch.hpp"

namespace algenta::cuda {
namespace {

__global__ void embed_kernel(const Element* __restrict__ table, const RowMeta* __restrict__ rows,
                             int hidden, float* __restrict__ x) {
  const Element* source = table + static_cast<int64_t>(rows[blockIdx.x].token) * hidden;
  float* target = x + static_cast<int64_t>(blockIdx.x) * hidden;
  for (int c = threadIdx.x; c < hidden; c += blockDim.x) target[c] = static_cast<float>(source[c]);
}

__global__ void __launch_bounds__(kNormThreads)
    rmsnorm_residual_kernel(float* __restrict__ x, const float* __restrict__ delta,
                            const float* __restrict__ delta_lo,
                            const float* __restrict__ delta_bias, const float* __restrict__ weight,
                            const int32_t* __restrict__ row_index, int hidden, float eps,
                            float* __restrict__ out, Element* __restrict__ hi,
                            Element* __restrict__ lo) {
  __shared__ float partial[kNormThreads];
  const int64_t r = row_index != nullptr ? row_index[blockIdx.x] : blockIdx.x;
  float* row = x + r * hidden;
  const float* delta_row = delta != nullptr ? delta + r * hidden : nullptr;
  const float* delta_lo_row = delta_lo != nullptr ? delta_lo + r * hidden : nullptr;

  float sum = 0.f;
  for (int c = threadIdx.x; c < hidden; c += kNormThreads) {
    float v = row[c];
    if (delta_row != nullptr) {
      // as the reference: x += (o + b); o = hi part + lo part when the GEMM
      // left them apart (the second GEMM would have added them the same way)
      float d = delta_row[c];
      if (delta_lo_row != nullptr) d = __fadd_rn(d, delta_lo_row[c]);
      if (delta_bias != nullptr) d = __fadd_rn(d, delta_bias[c]);
      v = residual_add(v, d);
      row[c] = v;  // each thread reads back only its own columns
    }
    sum = __fadd_rn(sum, __fmul_rn(v, v));
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kNormThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] = __fadd_rn(partial[threadIdx.x], partial[threadIdx.x + stride]);
    __syncthreads();
  }
  const float scale = 1.0f / sqrtf(partial[0] / static_cast<float>(hidden) + eps);
  const int64_t first = static_cast<int64_t>(blockIdx.x) * hidden;
  for (int c = threadIdx.x; c < hidden; c += kNormThreads) {
    const float v = __fmul_rn(__fmul_rn(row[c], scale), weight[c]);
    if (out != nullptr) {
      out[first + c] = v;
    } else {
      store_hi_lo(v, first + c, hi, lo);
    }
  }
}

}  // namespace

cudaError_t launch_embed(const Element* table, const RowMeta* rows, int row_count, int hidden,
                         float* x, cudaStream_t stream) {
  if (row_count == 0) return cudaSuccess;
  embed_kernel<<<row_count, kNormThreads, 0, stream>>>(table, rows, hidden, x);
  return cudaGetLastError();
}

cudaError_t launch_rmsnorm_residual(float* x, const float* delta, const float* delta_bias,
                                    const float* weight, const std::int32_t* row_index,
                                    int out_rows, int hidden, float eps, float* out,
                                    cudaStream_t stream) {
  if (out_rows == 0) return cudaSuccess;
  rmsnorm_residual_kernel<<<out_rows, kNormThreads, 0, stream>>>(
      x, delta, nullptr, delta_bias, weight, row_index, hidden, eps, out, nullptr, nullptr);
  return cudaGetLastError();
}

cudaError_t launch_rmsnorm_residual_hi_lo(float* x, const float* delta, const float* delta_lo,
                                          const float* delta_bias, const float* weight, int rows,
                                          int hidden, float eps, Element* hi, Element* lo,
                                          cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  rmsnorm_residual_kernel<<<rows, kNormThreads, 0, stream>>>(
      x, delta, delta_lo, delta_bias, weight, nullptr, hidden, eps, nullptr, hi, lo);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
