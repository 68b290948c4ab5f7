#include "rope.hpp"

#include <cmath>
#include <numbers>

namespace algenta::decoder {
namespace {

// torch evaluates `scalar op tensor` in the tensor's dtype: the Python
// number is rounded to f32 first.
float f32(double value) { return static_cast<float>(value); }

// transformers' _compute_llama3_parameters, one frequency at a time, with
// torch's f32 operations in the same order (`a / tensor` is reciprocal then
// multiply there).
float llama3_scaled(float inv_freq, const RopeConfig& c) {
  const float factor = f32(c.factor);
  const float low_freq_wavelen = f32(c.original_max_position_embeddings / c.low_freq_factor);
  const float high_freq_wavelen = f32(c.original_max_position_embeddings / c.high_freq_factor);

  const float wavelen = (1.0f / inv_freq) * f32(2.0 * std::numbers::pi);
  const float scaled = wavelen > low_freq_wavelen ? inv_freq / factor : inv_freq;
  const bool medium = !(wavelen < high_freq_wavelen) && !(wavelen > low_freq_wavelen);
  if (!medium) return scaled;
  const float smooth =
      ((1.0f / wavelen) * f32(c.original_max_position_embeddings) - f32(c.low_freq_factor)) /
      f32(c.high_freq_factor - c.low_freq_factor);
  return (1.0f - smooth) * scaled / factor + smooth * scaled;
}

}  // namespace

std::vector<float> rope_inverse_frequencies(std::size_t head_dim, const RopeConfig& config) {
  std::vector<float> inv_freq(head_dim / 2);
  for (std::size_t i = 0; i < inv_freq.size(); ++i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_dim);
    // theta ** exponent in f32: evaluated in double and rounded once.
    const float power = f32(std::pow(static_cast<double>(f32(config.theta)), exponent));
    float value = 1.0f / power;
    if (config.scaling == RopeConfig::Scaling::linear) value = value / f32(config.factor);
    if (config.scaling == RopeConfig::Scaling::llama3) value = llama3_scaled(value, config);
    inv_freq[i] = value;
  }
  return inv_freq;
}

void rope_angles(const std::vector<float>& inv_freq, std::size_t position, float* cos_out,
                 float* sin_out) {
  const float p = static_cast<float>(position);
  for (std::size_t i = 0; i < inv_freq.size(); ++i) {
    const float angle = p * inv_freq[i];
    // cos/sin of the f32 angle, rounded once from double.
    cos_out[i] = f32(std::cos(static_cast<double>(angle)));
    sin_out[i] = f32(std::sin(static_cast<double>(angle)));
  }
}

void apply_rope(float* x, std::size_t head_dim, const float* cos, const float* sin) {
  const std::size_t half = head_dim / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const float first = x[i];
    const float second = x[i + half];
    x[i] = first * cos[i] - second * sin[i];
    x[i + half] = second * cos[i] + first * sin[i];
  }
}

}  // namespace algenta::decoder
