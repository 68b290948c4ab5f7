// The kernels the engine drives, one launcher each. Every launcher only
// enqueues on `stream` and returns the launch's cudaError_t. Element is the
// target's weight type (TargetPolicy::Element); activations are fp32.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "engine_layout.hpp"
#include "target_policy.hpp"

namespace algenta::cuda {

using Element = TargetPolicy::Element;

// x[r, :] = float(table[rows[r].token, :])
cudaError_t launch_embed(const Element* table, const RowMeta* rows, int row_count, int hidden,
                         float* x, cudaStream_t stream);

// For output row i (input row r = row_index ? row_index[i] : i):
//   x[r, :] += delta[r, :] + delta_bias   (when delta is given; bias optional)
//   out[i, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight
cudaError_t launch_rmsnorm_residual(float* x, const float* delta, const float* delta_bias,
                                    const float* weight, const std::int32_t* row_index,
                                    int out_rows, int hidden, float eps, float* out,
                                    cudaStream_t stream);
// The same for every row, the normed rows written as a prefill GEMM's input
// halves (launch_split_hi_lo's bits) instead of fp32. delta_lo (may be null):
// the lo part of delta where its GEMM left the two halves' products apart;
// delta + delta_lo is then what the accumulating GEMM would have written.
cudaError_t launch_rmsnorm_residual_hi_lo(float* x, const float* delta, const float* delta_lo,
                                          const float* delta_bias, const float* weight, int rows,
                                          int hidden, float eps, Element* hi, Element* lo,
                                          cudaStream_t stream);

// qkv[r] = [q | k | v] as the fused projection wrote it. Adds the biases,
// applies the per-head q/k norms (when given) and RoPE (cos/sin tables of
// [positions][head_dim / 2]); q stays in qkv, k and v go to the cache slot
// of the row's position. bf16_inputs (the bf16 policy): q, k and v are
// rounded to bf16 values (still stored as fp32) on the way.
// qkv_lo (may be null): as delta_lo above.
cudaError_t launch_qkv_rope_cache(float* qkv, const float* qkv_lo, const HeadTransform& transform,
                                  const RowMeta* rows, int row_count, HeadShape shape, PagedKv kv,
                                  cudaStream_t stream);

// Causal attention of every row's query heads (q inside qkv rows of
// qkv_stride floats) over its sequence's cached keys 0..position.
// Prefill form: one pass over the blocks from position 0. lo_halves (exact):
// where it runs on tensor cores, every fp32 operand as hi + lo bf16 halves;
// false (bf16): the hi halves alone.
cudaError_t launch_attention_prefill(const float* qkv, int qkv_stride, const RowMeta* rows,
                                     int row_count, HeadShape shape, PagedKv kv, float scale,
                                     bool lo_halves, float* out, cudaStream_t stream);
// The same, written as the o projection's input halves (launch_split_hi_lo's
// bits of the values): on tensor cores the kernel stores them itself;
// elsewhere `out` holds the values and the split kernel runs after.
cudaError_t launch_attention_prefill_hi_lo(const float* qkv, int qkv_stride, const RowMeta* rows,
                                           int row_count, HeadShape shape, PagedKv kv, float scale,
                                           bool lo_halves, float* out, Element* hi, Element* lo,
                                           cudaStream_t stream);

// Decode form (flash-decoding): keys in fixed slices of kDecodeSplitBlocks
// blocks, one thread block per slice with 8 keys a warp, merged in key order
// into `partials` ([rows][heads][splits][head_dim + 2] floats); the row's
// last slice to finish merges the slices in order (a row of one slice
// writes its output directly). `tickets` holds
// rows x heads counters that are 0 before the launch and are left 0.
// `splits` is the grid's slice count: at least decode_slices_for(position)
// of every row (a row needing more traps: its output would never be
// written), so the launch follows the live length, not the context. A row's
// bits do not depend on it.
// With `transform`, qkv is the projection as written and the kernel does
// launch_qkv_rope_cache's work for its rows first (the same bits: q, and the
// row's key and value, which it also writes to the cache); without it (null),
// qkv_rope_cache has run.
cudaError_t launch_attention_decode(const float* qkv, int qkv_stride, const RowMeta* rows,
                                    int row_count, HeadShape shape, PagedKv kv,
                                    const HeadTransform* transform, float scale, int splits,
                                    float* partials, unsigned int* tickets, float* out,
                                    cudaStream_t stream);

// out[r, i] = silu(gate_up[r, i]) * gate_up[r, intermediate + i]
cudaError_t launch_swiglu(const float* gate_up, int rows, int intermediate, float* out,
                          cudaStream_t stream);
// The same, written as a prefill GEMM's input halves (launch_split_hi_lo's
// bits); gate_up_lo (may be null) as delta_lo above.
cudaError_t launch_swiglu_hi_lo(const float* gate_up, const float* gate_up_lo, int rows,
                                int intermediate, Element* hi, Element* lo, cudaStream_t stream);

// hi = Element(x), lo = Element(x - hi): two Element GEMMs on hi and lo
// carry about twice Element's mantissa of the fp32 activations. lo may be
// null (the bf16 policy: hi alone).
cudaError_t launch_split_hi_lo(const float* x, std::int64_t count, Element* hi, Element* lo,
                               cudaStream_t stream);

// y[m, n] = sum_k x[m, k] * w[n, k] on tensor cores in mma_gemm's fixed
// order: the decode path's and lm_head's GEMM. lo_halves (exact): fp32 x as
// hi + lo halves; false (bf16): x rounded to Element.
cudaError_t launch_mma_gemm_f32(const float* x, const Element* w, float* y, int rows, int columns,
                                int depth, bool lo_halves, cudaStream_t stream);

// The decode step's GEMMs with their neighbours fused, so the norm and
// SwiGLU kernels and the residual adds do not run on their own; each gives
// the unfused kernels' bits (fused_gemm_exactness compares them on the card).
// The input is x's rows, or with norm_weight their RMS norm
//   x[r] / sqrt(mean(x[r]^2) + eps) * norm_weight   (rows <= kMaxFusedNormRows).
//   normed:         y = input w^T
//   gate_up_swiglu: activation [rows, units] = SwiGLU of input w^T, w
//                   [2 units, depth] (gate rows, then up rows)
//   residual:       x[r] += input w^T + bias        (bias may be null)
inline constexpr int kMaxFusedNormRows = 16;
struct DecodeGemmInput {
  const float* x = nullptr;
  const float* norm_weight = nullptr;
  float eps = 0.f;
};
cudaError_t launch_mma_gemm_normed(const DecodeGemmInput& in, const Element* w, float* y, int rows,
                                   int columns, int depth, bool lo_halves, cudaStream_t stream);
cudaError_t launch_mma_gemm_gate_up_swiglu(const DecodeGemmInput& in, const Element* w,
                                           float* activation, int rows, int units, int depth,
                                           bool lo_halves, cudaStream_t stream);
cudaError_t launch_mma_gemm_residual(const float* input, const Element* w, const float* bias,
                                     float* x, int rows, int columns, int depth, bool lo_halves,
                                     cudaStream_t stream);

// tokens[r] = the index of the largest of row r's vocab logits (ties to the
// lowest index, NaN never, 0 when none beats -inf): the greedy token, as
// decoder::argmax_lowest picks it on the host. partials: kArgmaxPartialBytes
// a row of scratch.
inline constexpr int kArgmaxSlices = 32;
inline constexpr std::size_t kArgmaxPartialBytes = kArgmaxSlices * 8;
cudaError_t launch_greedy_argmax(const float* logits, int rows, int vocab, void* partials,
                                 std::int32_t* tokens, cudaStream_t stream);

}  // namespace algenta::cuda
