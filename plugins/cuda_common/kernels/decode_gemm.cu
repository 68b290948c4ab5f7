// The decode GEMM for the target's weight type with fp32 activations, the
// form the engine runs; the exactness test instantiates the all-Element form.
#include "decode_gemm.cuh"
#include "launch.hpp"

namespace algenta::cuda {

cudaError_t launch_decode_gemm_f32(const float* x, const Element* w, float* y, int rows,
                                   int columns, int depth, cudaStream_t stream) {
  return launch_decode_gemm<float, Element>(x, w, nullptr, y, rows, columns, depth, stream);
}

}  // namespace algenta::cuda
