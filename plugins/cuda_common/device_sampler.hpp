// The CUDA engine's side of engine sampling (ABI 1.2): turns each sampled
// row's AlgentaSampling into the device sampler's parameters, draws the rows
// in groups from logits that never leave the card, and hands back the
// tokens, logprobs and top logprobs, or the host sampler's refusal as an
// INTERNAL status naming the sequence. Sized once at open.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algenta/plugin_abi.h"
#include "device_memory.hpp"
#include "kernels/device_sampling.hpp"

namespace algenta::cuda {

// One row to draw: its logits row (on the device), how, and where the token goes.
struct SampledRow {
  const AlgentaSampling* sampling = nullptr;
  int logits_row = 0;
  std::uint64_t position = 0;  // of the token being drawn
  std::uint64_t sequence_id = 0;
  std::int32_t* token = nullptr;
};

class DeviceSampler {
 public:
  static constexpr int kRowsAtOnce = 16;  // rows per launch (the buffers' rows)

  explicit DeviceSampler(int vocab);
  // Device bytes the sampler allocates for this vocabulary.
  static std::uint64_t bytes_for(int vocab);

  // Draws every row, kRowsAtOnce at a time, from `logits` (device rows of
  // vocab floats); waits for the stream. Returns the bytes it copied from
  // the device (the rows' results). Throws plugin::StatusError.
  std::uint64_t draw(std::span<const SampledRow> rows, const float* logits, cudaStream_t stream);

 private:
  struct Layout;
  std::uint64_t draw_group(std::span<const SampledRow> rows, const float* logits,
                           cudaStream_t stream);

  int vocab_;
  DeviceArena arena_;
  SamplerBuffers buffers_;
  SamplingRowParams* params_ = nullptr;
  SamplingRowResult* results_ = nullptr;
  HistoryToken* history_ = nullptr;
  std::int32_t* banned_ = nullptr;
};

}  // namespace algenta::cuda
