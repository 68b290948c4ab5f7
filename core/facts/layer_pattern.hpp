// Which layers use sliding-window attention, spelled out per layer so no
// engine has to re-derive a family's rule.
#pragma once

#include <vector>

#include "facts/model_facts.hpp"

namespace algenta::facts {

// From an explicit layer_types list when the config has one, otherwise from
// the family's rule (transformers' config classes, see family_defaults.hpp):
//   gemma3:       full when (i + 1) % sliding_window_pattern == 0
//   qwen2, qwen3: sliding when a window is in effect and i >= max_window_layers
//   mistral:      every layer slides when sliding_window is set
//   llama:        every layer is full
// Empty for unknown families. Expects the facts read so far to be complete.
std::vector<LayerAttention> derive_layer_attention(const ModelFacts& facts);

LayerAttention layer_attention_of(const std::string& layer_type);

}  // namespace algenta::facts
