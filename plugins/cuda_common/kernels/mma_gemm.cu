// The tensor-core GEMM for the target's weight type (see mma_gemm.cuh).
#include "launch.hpp"
#include "mma_gemm.cuh"

namespace algenta::cuda {

cudaError_t launch_mma_gemm_f32(const float* x, const Element* w, float* y, int rows, int columns,
                                int depth, bool lo_halves, cudaStream_t stream) {
  return launch_mma_gemm<Element>(x, w, y, rows, columns, depth, lo_halves, stream);
}

#if defined(ALGENTA_CUDA_CANDIDATE_KERNELS) && ALGENTA_CUDA_CANDIDATE_KERNELS
namespace {

static_assert(kMaxFusedNormRows == kMaxNormedRows);

template <XForm kForm, bool kResidual>
cudaError_t launch_fused(const GemmX& in, const Element* w, const GemmY& out, int M, int N, int K,
                         bool lo_halves, cudaStream_t stream) {
  if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  if (kForm == XForm::normed && M > kMaxNormedRows) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;
  if (lo_halves)
    launch_mma_gemm_weights_a_fused<Element, true, kForm, kResidual>(in, w, out, M, N, K, stream);
  else
    launch_mma_gemm_weights_a_fused<Element, false, kForm, kResidual>(in, w, out, M, N, K, stream);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_mma_gemm_normed(const float* x, const float* norm_weight, float eps,
                                   const Element* w, float* y, int rows, int columns, int depth,
                                   bool lo_halves, cudaStream_t stream) {
  return launch_fused<XForm::normed, false>(GemmX{x, depth, norm_weight, eps}, w,
                                            GemmY{y, nullptr}, rows, columns, depth, lo_halves,
                                            stream);
}

cudaError_t launch_mma_gemm_residual(const float* input, const Element* w, const float* bias,
                                     float* x, int rows, int columns, int depth, bool lo_halves,
                                     cudaStream_t stream) {
  return launch_fused<XForm::plain, true>(GemmX{input, depth, nullptr, 0.f}, w, GemmY{x, bias},
                                          rows, columns, depth, lo_halves, stream);
}

cudaError_t launch_mma_gemm_swiglu(const float* gate_up, const Element* w, float* x, int rows,
                                   int columns, int depth, bool lo_halves, cudaStream_t stream) {
  return launch_fused<XForm::swiglu, true>(GemmX{gate_up, 2 * depth, nullptr, 0.f}, w,
                                           GemmY{x, nullptr}, rows, columns, depth, lo_halves,
                                           stream);
}

cudaError_t launch_mma_gemm_gate_up_swiglu(const float*, const Element*, float*, int, int, int,
                                           bool, cudaStream_t) {
  return cudaErrorNotSupported;  // the candidate build fuses SwiGLU into the down GEMM instead
}
#else
cudaError_t launch_mma_gemm_gate_up_swiglu(const float* x, const Element* w, float* activation,
                                           int rows, int units, int depth, bool lo_halves,
                                           cudaStream_t stream) {
  if (rows < 0 || units < 0 || depth < 0) return cudaErrorInvalidValue;
  if (rows == 0 || units == 0) return cudaSuccess;
  if (lo_halves)
    launch_mma_gemm_stream_swiglu<Element, true>(x, w, activation, rows, units, depth, stream);
  else
    launch_mma_gemm_stream_swiglu<Element, false>(x, w, activation, rows, units, depth, stream);
  return cudaGetLastError();
}

cudaError_t launch_mma_gemm_normed(const float*, const float*, float, const Element*, float*, int,
                                   int, int, bool, cudaStream_t) {
  return cudaErrorNotSupported;
}
cudaError_t launch_mma_gemm_residual(const float*, const Element*, const float*, float*, int, int,
                                     int, bool, cudaStream_t) {
  return cudaErrorNotSupported;
}
cudaError_t launch_mma_gemm_swiglu(const float*, const Element*, float*, int, int, int, bool,
                                   cudaStream_t) {
  return cudaErrorNotSupported;
}
#endif

}  // namespace algenta::cuda
