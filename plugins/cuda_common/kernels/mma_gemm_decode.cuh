// The decode GEMM's launch: the engine's switches (with_stream_settings),
// then the ring kernel (mma_gemm_ring.cuh) where it is switched on and
// takes the rows (up to 8, 16-byte aligned), the stream kernel
// (mma_gemm_stream.cuh) otherwise. Both give the same bits.
#pragma once

#include "mma_gemm_ring.cuh"
#include "mma_gemm_stream.cuh"

namespace algenta::cuda {

template <typename Element, bool kLo, bool kNormed, StreamOut kOut>
void launch_decode_gemm_io(const StreamIo& io, const Element* w, int M, int N, int K,
                           cudaStream_t stream) {
  const StreamIo with = with_stream_settings(io);
  if (with.ring && M <= kRingMaxRows && stream_rows_aligned<kNormed>(with, w, K))
    launch_mma_gemm_ring_io<Element, kLo, kNormed, kOut>(with, w, M, N, K, stream);
  else
    launch_mma_gemm_stream_io<Element, kLo, kNormed, kOut>(with, w, M, N, K, stream);
}

// y = x w^T: x [M, K] fp32, w [N, K], y [M, N].
template <typename Element, bool kLo>
void launch_decode_gemm(const float* x, const Element* w, float* y, int M, int N, int K,
                        cudaStream_t stream) {
  StreamIo io;
  io.x = x;
  io.y = y;
  launch_decode_gemm_io<Element, kLo, false, StreamOut::store>(io, w, M, N, K, stream);
}

}  // namespace algenta::cuda
