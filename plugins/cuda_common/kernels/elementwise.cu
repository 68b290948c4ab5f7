// Element-wise kernels: SwiGLU (fp32, or straight to a prefill GEMM's hi /
// lo halves) and the hi/lo split of fp32 activations.
#include "fused_inputs.cuh"
#include "launch.hpp"

namespace algenta::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 16 ? blocks : 65535 * 16);
}

// One block row per token row: columns strided within it, so no element
// index is divided. Writes fp32 `out`, or (out null) the hi / lo halves.
// gate_up_lo: the lo part of the GEMM's result, added first, where the GEMM
// left it apart.
__global__ void swiglu_kernel(const float* __restrict__ gate_up, const float* __restrict__ gate_up_lo,
                              int intermediate, float* __restrict__ out,
                              Element* __restrict__ hi, Element* __restrict__ lo) {
  const int64_t row = blockIdx.y;
  const float* base = gate_up + row * 2 * intermediate;
  const float* base_lo = gate_up_lo != nullptr ? gate_up_lo + row * 2 * intermediate : nullptr;
  for (int column = blockIdx.x * blockDim.x + threadIdx.x; column < intermediate;
       column += gridDim.x * blockDim.x) {
    float gate = base[column], up = base[intermediate + column];
    if (base_lo != nullptr) {
      gate = __fadd_rn(gate, base_lo[column]);
      up = __fadd_rn(up, base_lo[intermediate + column]);
    }
    const float v = swiglu_of(gate, up);
    const int64_t i = row * intermediate + column;
    if (out != nullptr) {
      out[i] = v;
    } else {
      store_hi_lo(v, i, hi, lo);
    }
  }
}

__global__ void split_hi_lo_kernel(const float* __restrict__ x, int64_t count,
                                   Element* __restrict__ hi, Element* __restrict__ lo) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    store_hi_lo(x[i], i, hi, lo);
  }
}

cudaError_t swiglu(const float* gate_up, const float* gate_up_lo, int rows, int intermediate,
                   float* out, Element* hi, Element* lo, cudaStream_t stream) {
  if (rows == 0 || intermediate == 0) return cudaSuccess;
  if (rows > 65535) return cudaErrorInvalidValue;
  const dim3 grid((intermediate + kThreads - 1) / kThreads, rows);
  swiglu_kernel<<<grid, kThreads, 0, stream>>>(gate_up, gate_up_lo, intermediate, out, hi, lo);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_swiglu(const float* gate_up, int rows, int intermediate, float* out,
                          cudaStream_t stream) {
  return swiglu(gate_up, nullptr, rows, intermediate, out, nullptr, nullptr, stream);
}

cudaError_t launch_swiglu_hi_lo(const float* gate_up, const float* gate_up_lo, int rows,
                                int intermediate, Element* hi, Element* lo, cudaStream_t stream) {
  return swiglu(gate_up, gate_up_lo, rows, intermediate, nullptr, hi, lo, stream);
}

cudaError_t launch_split_hi_lo(const float* x, std::int64_t count, Element* hi, Element* lo,
                               cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  split_hi_lo_kernel<<<blocks_for(count), kThreads, 0, stream>>>(x, count, hi, lo);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
