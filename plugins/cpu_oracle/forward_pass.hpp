// The decoder, written once for every family: embedding, then per layer
//   x += o_proj(attention(rope(norm_qk(q_proj(n) + b)), rope(norm_qk(k_proj(n) + b)), v_proj(n) +
//   b))
//        with n = input_layernorm(x)
//   x += down_proj(silu(gate_proj(n)) * up_proj(n))   with n = post_attention_layernorm(x)
// then model.norm and lm_head for the rows that need logits. The family
// description switches the biases and the q/k norms on or off.
//
// All rows of a step go through each layer together, so a weight matrix is
// streamed once per step; every row still attends only to its own
// sequence's cache, and every output element is reduced in one fixed order,
// so a row's result is the same alone, batched or chunked differently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kv_slots.hpp"
#include "matmul.hpp"
#include "model_weights.hpp"
#include "thread_pool.hpp"

namespace algenta::oracle {

// One token to compute: its sequence's slots (reserved up to `position`)
// and its position there. Every position between the sequence's cached
// length and `position` must be among the rows of the same run.
struct BatchRow {
  KvSlots* kv = nullptr;
  std::size_t position = 0;
  std::int32_t token = 0;
};

// Where the vocab logits of rows[row] go.
struct LogitsRow {
  std::size_t row = 0;
  float* out = nullptr;
};

class ForwardPass {
 public:
  ForwardPass(const ModelShape& shape, const FamilyDescription& family, const ModelWeights& weights,
              ThreadPool& pool, Isa isa);

  // Computes `rows`, writing their keys and values into their sequences'
  // slots (lengths are left to the caller), and the logits of `logits`.
  void run(std::span<const BatchRow> rows, std::span<const LogitsRow> logits);

  std::uint64_t workspace_bytes() const noexcept;

 private:
  // Per-step activations, rows x width each; grown, never shrunk.
  struct Workspace {
    std::vector<float> x, normed, q, k, v, attention, gate, up, cos, sin, scores;
    std::vector<std::vector<KvRun>> runs;  // per row: where its positions' keys lie
  };

  void size_workspace(std::span<const BatchRow> rows);
  void attention_block(std::size_t layer, std::span<const BatchRow> rows);
  void mlp_block(std::size_t layer, std::size_t row_count);
  void prepare_qkv(std::size_t layer, std::span<const BatchRow> rows);
  void compute_logits(std::span<const LogitsRow> logits);

  // outputs[t] = w . inputs[t] for every row of w, rows split over the pool.
  void project(const MatrixView& w, const std::vector<float>& input, std::size_t input_width,
               std::vector<float>& output, std::size_t row_count);
  // body(row) for every row, rows split over the pool.
  template <typename Body>
  void for_each_row(std::size_t row_count, const Body& body);

  const ModelShape& shape_;
  FamilyDescription family_;
  const ModelWeights& weights_;
  ThreadPool& pool_;
  Isa isa_;
  std::vector<float> inv_freq_;
  float attention_scale_;
  Workspace ws_;
};

}  // namespace algenta::oracle
