#include "forward_pass.hpp"

#include <algorithm>
#include <cstring>

#include "bf16_policy.hpp"
#include "ops.hpp"

namespace algenta::oracle {
namespace {

void grow(std::vector<float>& buffer, std::size_t floats) {
  if (buffer.size() < floats) buffer.resize(floats);
}

// The residual stream is fp32 under every policy; only the mutant build
// that keeps it in bf16 while running the bf16 policy rounds it.
void round_residual([[maybe_unused]] float* x, [[maybe_unused]] std::size_t n) {
#if ALGENTA_ORACLE_BF16_POLICY == 2
  if (bf16_policy_running()) round_to_bf16(x, n);
#endif
}

std::vector<float*> row_pointers(std::vector<float>& buffer, std::size_t width, std::size_t count) {
  std::vector<float*> rows(count);
  for (std::size_t r = 0; r < count; ++r) rows[r] = buffer.data() + r * width;
  return rows;
}

}  // namespace

ForwardPass::ForwardPass(const ModelShape& shape, const FamilyDescription& family,
                         const ModelWeights& weights, ThreadPool& pool, Isa isa)
    : shape_(shape),
      family_(family),
      weights_(weights),
      pool_(pool),
      isa_(isa),
      inv_freq_(rope_inverse_frequencies(shape.head_dim, shape.rope)),
      attention_scale_(attention_scale(shape.head_dim)) {}

template <typename Body>
void ForwardPass::for_each_row(std::size_t row_count, const Body& body) {
  pool_.run(row_count, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) body(r);
  });
}

void ForwardPass::project(const MatrixView& w, const std::vector<float>& input,
                          std::size_t input_width, std::vector<float>& output,
                          std::size_t row_count) {
  const std::vector<float*> outputs = row_pointers(output, w.rows, row_count);
  std::vector<const float*> inputs(row_count);
  for (std::size_t r = 0; r < row_count; ++r) inputs[r] = input.data() + r * input_width;
  pool_.run(w.rows, [&](std::size_t, std::size_t begin, std::size_t end) {
    matmul_rows(isa_, w, inputs, outputs, begin, end);
  });
}

void ForwardPass::size_workspace(std::span<const BatchRow> rows) {
  const std::size_t n = rows.size();
  std::size_t longest = 0;
  for (const BatchRow& row : rows) longest = std::max(longest, row.position + 1);
  grow(ws_.x, n * shape_.hidden);
  grow(ws_.normed, n * shape_.hidden);
  grow(ws_.q, n * shape_.q_dim());
  grow(ws_.k, n * shape_.kv_dim());
  grow(ws_.v, n * shape_.kv_dim());
  grow(ws_.attention, n * shape_.q_dim());
  grow(ws_.gate, n * shape_.intermediate);
  grow(ws_.up, n * shape_.intermediate);
  grow(ws_.cos, n * shape_.head_dim / 2);
  grow(ws_.sin, n * shape_.head_dim / 2);
  grow(ws_.scores, pool_.size() * longest);
}

std::uint64_t ForwardPass::workspace_bytes() const noexcept {
  std::size_t floats = 0;
  for (const auto* buffer : {&ws_.x, &ws_.normed, &ws_.q, &ws_.k, &ws_.v, &ws_.attention, &ws_.gate,
                             &ws_.up, &ws_.cos, &ws_.sin, &ws_.scores}) {
    floats += buffer->capacity();
  }
  return floats * sizeof(float);
}

void ForwardPass::run(std::span<const BatchRow> rows, std::span<const LogitsRow> logits) {
  size_workspace(rows);
  const std::size_t half = shape_.head_dim / 2;
  for_each_row(rows.size(), [&](std::size_t r) {
    widen_row(weights_.embed_tokens, static_cast<std::size_t>(rows[r].token),
              ws_.x.data() + r * shape_.hidden);
    round_residual(ws_.x.data() + r * shape_.hidden, shape_.hidden);
    rope_angles(inv_freq_, rows[r].position, ws_.cos.data() + r * half, ws_.sin.data() + r * half);
  });
  for (std::size_t layer = 0; layer < shape_.layers; ++layer) {
    attention_block(layer, rows);
    mlp_block(layer, rows.size());
  }
  compute_logits(logits);
}

// q, k, v of every row: projections, biases, per-head norms, RoPE; keys and
// values go straight into the rows' cache slots.
void ForwardPass::prepare_qkv(std::size_t layer, std::span<const BatchRow> rows) {
  const LayerWeights& w = weights_.layers[layer];
  const std::size_t n = rows.size();
  const std::size_t hd = shape_.head_dim;
  const std::size_t half = hd / 2;
  const std::size_t q_dim = shape_.q_dim();
  const std::size_t kv_dim = shape_.kv_dim();
  project(w.q_proj, ws_.normed, shape_.hidden, ws_.q, n);
  project(w.k_proj, ws_.normed, shape_.hidden, ws_.k, n);
  project(w.v_proj, ws_.normed, shape_.hidden, ws_.v, n);

  for_each_row(n, [&](std::size_t r) {
    float* q = ws_.q.data() + r * q_dim;
    float* k = ws_.k.data() + r * kv_dim;
    float* v = ws_.v.data() + r * kv_dim;
    if (family_.qkv_bias) {
      add_in_place(q, w.q_bias.data(), q_dim);
      add_in_place(k, w.k_bias.data(), kv_dim);
      add_in_place(v, w.v_bias.data(), kv_dim);
    }
    if (family_.qk_norm) {
      for (std::size_t h = 0; h < shape_.heads; ++h) {
        rmsnorm(q + h * hd, w.q_norm.data(), hd, shape_.rms_norm_eps, q + h * hd);
      }
      for (std::size_t h = 0; h < shape_.kv_heads; ++h) {
        rmsnorm(k + h * hd, w.k_norm.data(), hd, shape_.rms_norm_eps, k + h * hd);
      }
    }
    const float* cos = ws_.cos.data() + r * half;
    const float* sin = ws_.sin.data() + r * half;
    const float* q_cos = cos;
    const float* q_sin = sin;
#if ALGENTA_ORACLE_PLANTED_BUG == 1
    // planted: the query is rotated for the position after its own
    std::vector<float> shifted(2 * half);
    rope_angles(inv_freq_, rows[r].position + 1, shifted.data(), shifted.data() + half);
    q_cos = shifted.data();
    q_sin = shifted.data() + half;
#endif
    for (std::size_t h = 0; h < shape_.heads; ++h) apply_rope(q + h * hd, hd, q_cos, q_sin);
    for (std::size_t h = 0; h < shape_.kv_heads; ++h) apply_rope(k + h * hd, hd, cos, sin);
#if ALGENTA_ORACLE_BF16_POLICY
    // The bf16 policy: attention reads q, keys and values as bf16, and the
    // cache holds them so.
    if (bf16_policy_running()) {
      round_to_bf16(q, q_dim);
      round_to_bf16(k, kv_dim);
      round_to_bf16(v, kv_dim);
    }
#endif
    KvSlots& kv = *rows[r].kv;
    std::memcpy(kv.key_slot(layer, rows[r].position), k, kv_dim * sizeof(float));
    std::memcpy(kv.value_slot(layer, rows[r].position), v, kv_dim * sizeof(float));
  });
}

void ForwardPass::attention_block(std::size_t layer, std::span<const BatchRow> rows) {
  const LayerWeights& w = weights_.layers[layer];
  const std::size_t n = rows.size();
  const std::size_t hd = shape_.head_dim;
  const std::size_t heads = shape_.heads;
  const std::size_t kv_dim = shape_.kv_dim();
  const std::size_t longest = ws_.scores.size() / pool_.size();

  for_each_row(n, [&](std::size_t r) {
    rmsnorm(ws_.x.data() + r * shape_.hidden, w.input_norm.data(), shape_.hidden,
            shape_.rms_norm_eps, ws_.normed.data() + r * shape_.hidden);
  });
  prepare_qkv(layer, rows);
  if (ws_.runs.size() < n) ws_.runs.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    ws_.runs[r].clear();
    rows[r].kv->runs(layer, rows[r].position + 1, ws_.runs[r]);
  }

  // Every (row, head) pair is independent once all keys/values are in place.
  pool_.run(n * heads, [&](std::size_t worker, std::size_t begin, std::size_t end) {
    float* scores = ws_.scores.data() + worker * longest;
    for (std::size_t item = begin; item < end; ++item) {
      const std::size_t r = item / heads;
      const std::size_t h = item % heads;
      const std::size_t kv_offset = kv_head_of(h, heads, shape_.kv_heads) * hd;
      attend_head(ws_.q.data() + r * shape_.q_dim() + h * hd, ws_.runs[r], kv_offset, kv_dim, hd,
                  attention_scale_, scores, ws_.attention.data() + r * shape_.q_dim() + h * hd);
    }
  });

  project(w.o_proj, ws_.attention, shape_.q_dim(), ws_.normed, n);
  for_each_row(n, [&](std::size_t r) {
    float* out = ws_.normed.data() + r * shape_.hidden;
    if (family_.o_bias) add_in_place(out, w.o_bias.data(), shape_.hidden);
    add_in_place(ws_.x.data() + r * shape_.hidden, out, shape_.hidden);
    round_residual(ws_.x.data() + r * shape_.hidden, shape_.hidden);
  });
}

void ForwardPass::mlp_block(std::size_t layer, std::size_t n) {
  const LayerWeights& w = weights_.layers[layer];
  const std::size_t hidden = shape_.hidden;
  const std::size_t inter = shape_.intermediate;
  for_each_row(n, [&](std::size_t r) {
    rmsnorm(ws_.x.data() + r * hidden, w.post_attention_norm.data(), hidden, shape_.rms_norm_eps,
            ws_.normed.data() + r * hidden);
  });
  project(w.gate_proj, ws_.normed, hidden, ws_.gate, n);
  project(w.up_proj, ws_.normed, hidden, ws_.up, n);
  for_each_row(n, [&](std::size_t r) {
    swiglu_in_place(ws_.gate.data() + r * inter, ws_.up.data() + r * inter, inter);
  });
  project(w.down_proj, ws_.gate, inter, ws_.normed, n);
  for_each_row(n, [&](std::size_t r) {
    add_in_place(ws_.x.data() + r * hidden, ws_.normed.data() + r * hidden, hidden);
    round_residual(ws_.x.data() + r * hidden, hidden);
  });
}

void ForwardPass::compute_logits(std::span<const LogitsRow> logits) {
  const std::size_t hidden = shape_.hidden;
  std::vector<const float*> inputs(logits.size());
  std::vector<float*> outputs(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i) {
    const std::size_t r = logits[i].row;
    // Only these rows need the final norm; `normed` row i holds row r's.
    rmsnorm(ws_.x.data() + r * hidden, weights_.final_norm.data(), hidden, shape_.rms_norm_eps,
            ws_.normed.data() + i * hidden);
    inputs[i] = ws_.normed.data() + i * hidden;
    outputs[i] = logits[i].out;
  }
  const MatrixView& lm_head = weights_.lm_head;
  pool_.run(lm_head.rows, [&](std::size_t, std::size_t begin, std::size_t end) {
    matmul_rows(isa_, lm_head, inputs, outputs, begin, end);
  });
}

}  // namespace algenta::oracle
