// The tensor-core GEMM for the target's weight type (see mma_gemm.cuh).
#include "launch.hpp"
#include "mma_gemm.cuh"

namespace algenta::cuda {

cudaError_t launch_mma_gemm_f32(const float* x, const Element* w, float* y, int rows, int columns,
                                int depth, bool lo_halves, cudaStream_t stream) {
  return launch_mma_gemm<Element>(x, w, y, rows, columns, depth, lo_halves, stream);
}

}  // namespace algenta::cuda
