// The tensor-core GEMM for the target's weight type (see mma_gemm.cuh), and
// its fused decode forms.
#include "launch.hpp"
#include "mma_gemm.cuh"

namespace algenta::cuda {

cudaError_t launch_mma_gemm_f32(const float* x, const Element* w, float* y, int rows, int columns,
                                int depth, bool lo_halves, cudaStream_t stream) {
  return launch_mma_gemm<Element>(x, w, y, rows, columns, depth, lo_halves, stream);
}

namespace {

static_assert(kMaxFusedNormRows == kMaxStreamNormRows);

template <bool kNormed, StreamOut kOut>
cudaError_t launch_stream(const StreamIo& io, const Element* w, int M, int N, int K,
                          bool lo_halves, cudaStream_t stream) {
  if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  if (kNormed && M > kMaxFusedNormRows) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;
  if (lo_halves)
    launch_decode_gemm_io<Element, true, kNormed, kOut>(io, w, M, N, K, stream);
  else
    launch_decode_gemm_io<Element, false, kNormed, kOut>(io, w, M, N, K, stream);
  return cudaGetLastError();
}

template <StreamOut kOut>
cudaError_t launch_from_input(const DecodeGemmInput& in, const Element* w, float* y, int M, int N,
                              int K, bool lo_halves, cudaStream_t stream) {
  StreamIo io;
  io.x = in.x;
  io.norm_weight = in.norm_weight;
  io.eps = in.eps;
  io.y = y;
  if (in.norm_weight != nullptr) return launch_stream<true, kOut>(io, w, M, N, K, lo_halves, stream);
  return launch_stream<false, kOut>(io, w, M, N, K, lo_halves, stream);
}

}  // namespace

cudaError_t launch_mma_gemm_normed(const DecodeGemmInput& in, const Element* w, float* y, int rows,
                                   int columns, int depth, bool lo_halves, cudaStream_t stream) {
  return launch_from_input<StreamOut::store>(in, w, y, rows, columns, depth, lo_halves, stream);
}

cudaError_t launch_mma_gemm_gate_up_swiglu(const DecodeGemmInput& in, const Element* w,
                                           float* activation, int rows, int units, int depth,
                                           bool lo_halves, cudaStream_t stream) {
  return launch_from_input<StreamOut::swiglu>(in, w, activation, rows, units, depth, lo_halves,
                                              stream);
}

cudaError_t launch_mma_gemm_residual(const float* input, const Element* w, const float* bias,
                                     float* x, int rows, int columns, int depth, bool lo_halves,
                                     cudaStream_t stream) {
  StreamIo io;
  io.x = input;
  io.y = x;
  io.bias = bias;
  return launch_stream<false, StreamOut::residual>(io, w, rows, columns, depth, lo_halves, stream);
}

}  // namespace algenta::cuda
