// The decoder's elementwise and per-row operations, in fp32, as
// transformers' Llama/Qwen2/Qwen3 modules compute them. Every sum runs in
// one fixed order (matmul.hpp's lane order, or position order), so a row's
// result never depends on the rows computed next to it.
#pragma once

#include "greedy_choice.hpp"
#include "kv_slots.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace algenta::oracle {

// out = weight * (x * 1/sqrt(mean(x^2) + eps))   (LlamaRMSNorm; out may be x)
void rmsnorm(const float* x, const float* weight, std::size_t n, float eps, float* out);

// x += y
void add_in_place(float* x, const float* y, std::size_t n);

// silu(x) = x / (1 + exp(-x))
float silu(float x);

// gate = silu(gate) * up   (SwiGLU before down_proj)
void swiglu_in_place(float* gate, const float* up, std::size_t n);

// The key/value head a query head reads (grouped-query attention: query
// heads are split into kv_heads equal, consecutive groups).
std::size_t kv_head_of(std::size_t query_head, std::size_t heads, std::size_t kv_heads);

// One query head at the newest of `positions` positions, causal over all of
// them: out = softmax(q . k_t * scale) over t, times v_t.
// keys/values point at position 0 of this head's slice, `kv_stride` floats
// apart per position; `scores` holds `positions` floats of scratch.
void attend_head(const float* q, const float* keys, const float* values, std::size_t kv_stride,
                 std::size_t positions, std::size_t head_dim, float scale, float* scores,
                 float* out);

// The same over positions that lie in `runs` (kv_slots.hpp), in position
// order, reading the head's slice `head_offset` floats into each position:
// the same bits as one run holding them all. `scores` holds as many floats
// as the runs have positions.
void attend_head(const float* q, std::span<const KvRun> runs, std::size_t head_offset,
                 std::size_t kv_stride, std::size_t head_dim, float scale, float* scores,
                 float* out);

// Every query head of one row (heads * head_dim floats of q and out), each
// reading its grouped kv head from rows of kv_heads * head_dim floats.
void attend_all_heads(const float* q, const float* keys, const float* values, std::size_t positions,
                      std::size_t heads, std::size_t kv_heads, std::size_t head_dim, float scale,
                      float* scores, float* out);

// 1 / sqrt(head_dim) as transformers applies it (head_dim ** -0.5, in f32).
float attention_scale(std::size_t head_dim);

using decoder::argmax_lowest;

}  // namespace algenta::oracle
