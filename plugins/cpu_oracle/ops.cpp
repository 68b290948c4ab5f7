#include "ops.hpp"

#include <cmath>
#include <limits>

#include "matmul.hpp"

namespace algenta::oracle {

void rmsnorm(const float* x, const float* weight, std::size_t n, float eps, float* out) {
  const float mean_square = dot(x, x, n) / static_cast<float>(n);
  const float inverse_rms = 1.0f / std::sqrt(mean_square + eps);
  for (std::size_t i = 0; i < n; ++i) out[i] = weight[i] * (x[i] * inverse_rms);
}

void add_in_place(float* x, const float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] += y[i];
}

float silu(float x) { return x / (1.0f + std::exp(-x)); }

void swiglu_in_place(float* gate, const float* up, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) gate[i] = silu(gate[i]) * up[i];
}

std::size_t kv_head_of(std::size_t query_head, std::size_t heads, std::size_t kv_heads) {
#if ALGENTA_ORACLE_PLANTED_BUG == 2
  (void)heads;
  return query_head % kv_heads;  // planted: interleaved instead of grouped
#else
  return query_head / (heads / kv_heads);
#endif
}

void attend_head(const float* q, const float* keys, const float* values, std::size_t kv_stride,
                 std::size_t positions, std::size_t head_dim, float scale, float* scores,
                 float* out) {
  const KvRun whole{keys, values, positions};
  attend_head(q, {&whole, 1}, 0, kv_stride, head_dim, scale, scores, out);
}

void attend_head(const float* q, std::span<const KvRun> runs, std::size_t head_offset,
                 std::size_t kv_stride, std::size_t head_dim, float scale, float* scores,
                 float* out) {
  // Positions in order, run after run: the same sums in the same order
  // whether the positions lie in one run or in many.
  float max_score = -std::numeric_limits<float>::infinity();
  std::size_t positions = 0;
  for (const KvRun& run : runs) {
    for (std::size_t i = 0; i < run.positions; ++i, ++positions) {
      scores[positions] = dot(q, run.keys + head_offset + i * kv_stride, head_dim) * scale;
      if (scores[positions] > max_score) max_score = scores[positions];
    }
  }
  float sum = 0.0f;
  for (std::size_t t = 0; t < positions; ++t) {
    scores[t] = std::exp(scores[t] - max_score);
    sum += scores[t];
  }
  for (std::size_t t = 0; t < positions; ++t) scores[t] /= sum;

  for (std::size_t d = 0; d < head_dim; ++d) out[d] = 0.0f;
  std::size_t t = 0;
  for (const KvRun& run : runs) {
    for (std::size_t i = 0; i < run.positions; ++i, ++t) {
      const float* v = run.values + head_offset + i * kv_stride;
      for (std::size_t d = 0; d < head_dim; ++d) out[d] += scores[t] * v[d];
    }
  }
}

void attend_all_heads(const float* q, const float* keys, const float* values, std::size_t positions,
                      std::size_t heads, std::size_t kv_heads, std::size_t head_dim, float scale,
                      float* scores, float* out) {
  const std::size_t kv_stride = kv_heads * head_dim;
  for (std::size_t h = 0; h < heads; ++h) {
    const std::size_t kv = kv_head_of(h, heads, kv_heads);
    attend_head(q + h * head_dim, keys + kv * head_dim, values + kv * head_dim, kv_stride,
                positions, head_dim, scale, scores, out + h * head_dim);
  }
}

float attention_scale(std::size_t head_dim) {
  return static_cast<float>(std::pow(static_cast<double>(head_dim), -0.5));
}


}  // namespace algenta::oracle
