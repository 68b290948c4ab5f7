// What the engine hands its kernels about a pass: one RowMeta per token row
// and where each sequence's keys and values live in the paged cache.
// Plain C++17 shared by the kernels (.cu) and the engine (.cpp).
#pragma once

#include <cstdint>

namespace algenta::cuda {

// Tokens per KV block. Attention walks keys block by block from position 0,
// so a block is also the unit of its fixed reduction order.
inline constexpr int kKvBlockTokens = 32;
// head_dim <= 32 * kMaxHeadDimPerLane: a lane keeps that many accumulators.
inline constexpr int kMaxHeadDimPerLane = 8;
inline constexpr int kMaxHeadDim = 32 * kMaxHeadDimPerLane;
// Decode attention splits a sequence's keys into slices of this many blocks
// (128 keys): one thread block takes a slice, 8 keys a warp, so a short
// context still spreads over many warps. Fixed, never chosen by batch size: a row's bits depend on its
// position alone.
inline constexpr int kDecodeSplitBlocks = 4;

// Slices holding the keys 0..position (kernels and engine alike).
#ifdef __CUDACC__
__host__ __device__
#endif
constexpr int decode_slices_for(int position) {
  return (position / kKvBlockTokens + kDecodeSplitBlocks) / kDecodeSplitBlocks;
}

struct RowMeta {
  std::int32_t token;
  std::int32_t position;     // < 0: a padding row that computes nothing
  std::int32_t slot;         // the row's sequence: its row in the block tables
  std::int32_t chunk_start;  // first position of the row's chunk
};

// Keys and values of one layer, fp32, laid out
//   [block][kv_head][kKvBlockTokens][head_dim]
// with block_tables[slot * max_blocks + position / kKvBlockTokens] naming the
// block of a sequence's position.
struct PagedKv {
  float* keys;
  float* values;
  const std::int32_t* block_tables;
  int max_blocks;
  int kv_heads;
  int head_dim;
};

// The attention heads of the model.
struct HeadShape {
  int heads;
  int kv_heads;
  int head_dim;
};

// What turns a row's fused [q | k | v] projection into attention's inputs:
// the biases, the per-head norms and RoPE.
struct HeadTransform {
  const float* bias;      // [q | k | v] biases, or null
  const float* q_norm;    // per-head norm weights [head_dim], or null
  const float* k_norm;
  float eps;
  const float* rope_cos;  // [positions][head_dim / 2]
  const float* rope_sin;
  bool bf16_inputs;       // q, k and v rounded to bf16 values (the bf16 policy)
};

}  // namespace algenta::cuda
