// Rotary position embedding as transformers computes it, in fp32.
//
// inv_freq[i] = 1 / theta^(2i / head_dim), then the checkpoint's scaling:
// linear divides every frequency by `factor`; llama3 divides the low
// frequencies by `factor`, keeps the high ones and blends in between
// (transformers' _compute_llama3_parameters). A position's angles are
// float(position) * inv_freq[i]; rotate_half pairs element i with
// i + head_dim/2.
#pragma once

#include <cstddef>
#include <vector>

namespace algenta::decoder {

struct RopeConfig {
  enum class Scaling { none, linear, llama3 };
  double theta = 10000.0;
  Scaling scaling = Scaling::none;
  double factor = 1.0;                               // linear, llama3
  double low_freq_factor = 1.0;                      // llama3
  double high_freq_factor = 4.0;                     // llama3
  double original_max_position_embeddings = 8192.0;  // llama3
};

// head_dim / 2 inverse frequencies; head_dim must be even.
std::vector<float> rope_inverse_frequencies(std::size_t head_dim, const RopeConfig& config);

// cos and sin of one position's angles, head_dim / 2 each.
void rope_angles(const std::vector<float>& inv_freq, std::size_t position, float* cos_out,
                 float* sin_out);

// Rotates one head in place:
//   x[i]     = x[i] * cos[i] - x[i + half] * sin[i]
//   x[i+half] = x[i + half] * cos[i] + x[i] * sin[i]
void apply_rope(float* x, std::size_t head_dim, const float* cos, const float* sin);

}  // namespace algenta::decoder
