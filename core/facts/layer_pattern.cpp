#include "facts/layer_pattern.hpp"

#include <cstdint>

namespace algenta::facts {

LayerAttention layer_attention_of(const std::string& layer_type) {
  if (layer_type == "full_attention") return LayerAttention::full;
  if (layer_type == "sliding_attention") return LayerAttention::sliding;
  return LayerAttention::other;
}

std::vector<LayerAttention> derive_layer_attention(const ModelFacts& facts) {
  const auto layers = static_cast<std::size_t>(facts.num_hidden_layers);
  std::vector<LayerAttention> kinds;
  if (!facts.layer_types.empty()) {
    for (const auto& type : facts.layer_types) kinds.push_back(layer_attention_of(type));
    return kinds;
  }
  if (facts.family == Family::unknown) return kinds;

  kinds.assign(layers, LayerAttention::full);
  if (!facts.sliding_window) return kinds;
  for (std::size_t i = 0; i < layers; ++i) {
    const auto layer = static_cast<std::int64_t>(i);
    bool sliding = false;
    switch (facts.family) {
      case Family::gemma3:
        sliding = (layer + 1) % facts.sliding_window_pattern.value_or(1) != 0;
        break;
      case Family::qwen2:
      case Family::qwen3:
        sliding = layer >= facts.max_window_layers.value_or(0);
        break;
      case Family::llama:
        sliding = facts.model_type == "mistral";
        break;
      case Family::unknown:
        break;
    }
    if (sliding) kinds[i] = LayerAttention::sliding;
  }
  return kinds;
}

}  // namespace algenta::facts
