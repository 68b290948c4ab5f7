// The engine's per-pass device buffers, sized once at open from the model's
// shape and the pass limits (no growth later, so a step cannot run out of
// workspace half way).
#pragma once

#include <cstddef>
#include <cstdint>

#include "device_memory.hpp"
#include "kernels/launch.hpp"
#include "model_shape.hpp"

namespace algenta::cuda {

struct PassLimits {
  int max_rows = 0;        // token rows in one pass (prefill rows or a decode bucket)
  int max_slots = 0;       // sequences in one pass
  int max_blocks = 0;      // KV blocks per sequence (the served context)
  int max_decode_rows = 0; // rows of a decode pass
  int max_splits = 0;      // decode attention slices per sequence
  int logits_rows = 0;     // rows of logits computed at once
  int rope_positions = 0;  // rows of the RoPE tables
  std::size_t gemm_workspace = 0;
};

struct Workspace {
  Workspace(const decoder::ModelShape& shape, const PassLimits& limits);

  std::uint64_t bytes() const noexcept { return arena.bytes(); }
  // One allocation; the decode attention tickets start at 0.
  void allocate();
  template <typename T>
  T* at(std::size_t offset) const {
    return arena.at<T>(offset);
  }

  DeviceArena arena;
  std::size_t rows, block_tables, logit_rows;  // RowMeta, int32, int32
  std::size_t x, normed, qkv, attention, delta, gate_up, activation;  // fp32
  std::size_t hi, lo;                                                 // Element
  std::size_t partials, logits, rope_cos, rope_sin, gemm;
  std::size_t greedy_tokens;   // int32 per logits row
  std::size_t greedy_partials; // the device argmax's slices, per logits row
  std::size_t decode_tickets;  // unsigned int per (decode row, head)
  std::size_t decode_ticket_bytes = 0;
};

}  // namespace algenta::cuda
