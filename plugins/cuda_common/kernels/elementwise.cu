// Element-wise kernels: SwiGLU and the hi/lo split of fp32 activations.
#include "fused_inputs.cuh"
#include "launch.hpp"

namespace algenta::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 16 ? blocks : 65535 * 16);
}

__global__ void swiglu_kernel(const float* __restrict__ gate_up, int64_t count, int intermediate,
                              float* __restrict__ out) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t row = i / intermediate;
    const int64_t column = i % intermediate;
    const float* base = gate_up + row * 2 * intermediate;
    out[i] = swiglu_of(base[column], base[intermediate + column]);
  }
}

__global__ void split_hi_lo_kernel(const float* __restrict__ x, int64_t count,
                                   Element* __restrict__ hi, Element* __restrict__ lo) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    const Element h = static_cast<Element>(x[i]);
    hi[i] = h;
    if (lo != nullptr) lo[i] = static_cast<Element>(__fsub_rn(x[i], static_cast<float>(h)));
  }
}

}  // namespace

cudaError_t launch_swiglu(const float* gate_up, int rows, int intermediate, float* out,
                          cudaStream_t stream) {
  const int64_t count = int64_t{rows} * intermediate;
  if (count == 0) return cudaSuccess;
  swiglu_kernel<<<blocks_for(count), kThreads, 0, stream>>>(gate_up, count, intermediate, out);
  return cudaGetLastError();
}

cudaError_t launch_split_hi_lo(const float* x, std::int64_t count, Element* hi, Element* lo,
                               cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  split_hi_lo_kernel<<<blocks_for(count), kThreads, 0, stream>>>(x, count, hi, lo);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
