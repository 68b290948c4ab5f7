// The decoder on the device, written once for every family and target:
//   x = embed(tokens)
//   per layer:  n = norm(x += delta);  qkv = n Wqkv;  bias, q/k norm, RoPE,
//               k/v -> cache;  a = attention;  delta = a Wo
//               n = norm(x += delta + bo);  delta = swiglu(n Wgu) Wdown
//   logits rows: n = norm(x += delta);  logits = n Wlm
// Two forms share it and differ only in their GEMM and attention kernels:
// prefill (cuBLASLt on tensor cores, one-pass attention) and decode (the
// fixed-order decode GEMM, split-K attention; captured into CUDA graphs).
// Which form a row takes depends on its own chunk alone (one token: decode).
//
// Precision policies (chosen at open): exact feeds every GEMM and the
// tensor-core attention fp32 operands as bf16 hi + lo halves; bf16 rounds
// GEMM and attention inputs and the KV cache's values to bf16 (the cache
// still stored as fp32) and uses the hi halves alone. Both accumulate in
// fp32 and keep the residual stream in fp32.
#pragma once

#include <cuda_runtime_api.h>

#include "device_weights.hpp"
#include "lt_gemm.hpp"
#include "model_shape.hpp"
#include "workspace.hpp"

namespace algenta::cuda {

enum class PassForm { prefill, decode };
enum class Precision { exact, bf16 };

// Per layer, the fp32 key and value blocks of the paged cache.
struct KvPool {
  float* base = nullptr;
  std::size_t blocks = 0;
  std::size_t block_floats = 0;  // kv_heads * kKvBlockTokens * head_dim
  PagedKv layer(std::size_t index, const std::int32_t* block_tables, int max_blocks,
                int kv_heads, int head_dim) const;
  std::uint64_t bytes(std::size_t layers) const;
};

class DeviceForward {
 public:
  DeviceForward(const decoder::ModelShape& shape, const decoder::FamilyDescription& family,
                const DeviceWeights& weights, const Workspace& workspace, const PassLimits& limits,
                const KvPool& kv, LtGemm& gemm, Precision precision);

  // Enqueues every layer for `rows` rows whose RowMeta and block tables are
  // already in the workspace; a prefill leaves the last layer's delta
  // unadded (a decode pass's GEMMs add their own output to x).
  // `decode_splits`: decode attention's slice count, at least every row's
  // decode_slices_for(position) and at most the limits' max_splits (0: the
  // maximum).
  void layers(int row_count, PassForm form, cudaStream_t stream, int decode_splits = 0) const;
  // normed[i] = final_norm(x[r] += delta[r]) for r = logit_rows[i] (device
  // list), or for r = i when the list is null; the add is skipped after a
  // decode pass, whose layers added their own output.
  void final_norm(const std::int32_t* logit_rows, int count, PassForm form,
                  cudaStream_t stream) const;
  // logits (workspace) rows 0..count-1 from normed rows first..first+count-1.
  void lm_head(int first, int count, cudaStream_t stream) const;
  // greedy_tokens()[i] = the greedy token of logits row i, i < count.
  void greedy(int count, cudaStream_t stream) const;

  float* logits() const;
  RowMeta* rows() const;
  std::int32_t* block_tables() const;
  std::int32_t* logit_rows() const;
  std::int32_t* greedy_tokens() const;

 private:
  // A prefill GEMM's input halves in the workspace (lo null in the bf16 policy).
  struct Halves {
    Element* hi;
    Element* lo;
  };
  Halves halves(int rows, int k) const;
  bool stacks(int rows) const;
  const float* project_halves(const Element* weight, float* output, int rows, int n, int k,
                              cudaStream_t stream, bool may_stack = true) const;
  void attend(std::size_t layer, int row_count, PassForm form, int decode_splits,
              cudaStream_t stream, const float* qkv_lo = nullptr) const;
  DecodeGemmInput normed_input(const float* norm_weight, int rows, cudaStream_t stream) const;
  void decode_layer(std::size_t layer, int rows, int splits, cudaStream_t stream) const;

  const decoder::ModelShape& shape_;
  decoder::FamilyDescription family_;
  const DeviceWeights& weights_;
  const Workspace& ws_;
  PassLimits limits_;
  KvPool kv_;
  LtGemm& gemm_;
  bool lo_halves_;  // the exact policy
  float attention_scale_;
};

}  // namespace algenta::cuda
