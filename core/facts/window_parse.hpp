// Sliding-window facts: the window, each family's switch and pattern, an
// explicit layer_types list, and the per-layer result.
#pragma once

#include "facts/field_reader.hpp"
#include "facts/model_facts.hpp"

namespace algenta::facts {

// Needs facts.family, model_type and num_hidden_layers already read; fills
// the window fields and layer_attention, and appends to facts.defaulted.
void read_attention_window(const FieldReader& text, ModelFacts& facts);

}  // namespace algenta::facts
