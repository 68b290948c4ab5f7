#include "facts/window_parse.hpp"

#include <algorithm>
#include <string>

#include "facts/family_defaults.hpp"
#include "facts/layer_pattern.hpp"

namespace algenta::facts {
namespace {

using nlohmann::json;

void read_gemma3_window(const FieldReader& text, ModelFacts& facts) {
  facts.sliding_window = text.positive_integer("sliding_window");
  if (!facts.sliding_window) {
    facts.sliding_window = defaults::kGemma3SlidingWindow;
    facts.defaulted.push_back(text.fact("sliding_window"));
  }
  facts.sliding_window_pattern = text.positive_integer("sliding_window_pattern");
  if (!facts.sliding_window_pattern && !text.has("layer_types")) {
    facts.sliding_window_pattern = defaults::kGemma3SlidingWindowPattern;
    facts.defaulted.push_back(text.fact("sliding_window_pattern"));
  }
}

// Qwen2Config/Qwen3Config keep a window only when use_sliding_window is true;
// Qwen2.5 ships "sliding_window": 131072 with the switch off, which means none.
void read_qwen_window(const FieldReader& text, ModelFacts& facts) {
  facts.use_sliding_window = text.boolean("use_sliding_window");
  if (!facts.use_sliding_window) {
    facts.use_sliding_window = defaults::kQwenUseSlidingWindow;
    facts.defaulted.push_back(text.fact("use_sliding_window"));
  }
  const auto window = text.positive_integer("sliding_window");
  facts.max_window_layers = text.integer("max_window_layers");
  if (facts.max_window_layers && *facts.max_window_layers < 0) {
    text.fail("max_window_layers",
              "must not be negative, got " + std::to_string(*facts.max_window_layers));
  }
  if (!*facts.use_sliding_window) return;
  if (!window) {
    text.fail("sliding_window", "missing while use_sliding_window is true");
  }
  if (!facts.max_window_layers) {
    text.fail("max_window_layers", "missing while use_sliding_window is true");
  }
  facts.sliding_window = window;
}

// MistralConfig assumes a 4096 window when the key is absent, so absence is
// not "no window": the key must be there (null says none).
void read_mistral_window(const FieldReader& text, ModelFacts& facts) {
  facts.sliding_window = text.positive_integer("sliding_window");
  if (!facts.sliding_window && !text.present("sliding_window")) {
    text.fail("sliding_window",
              "missing; transformers would assume 4096 for mistral, so it must be stated "
              "(null for none)");
  }
}

void read_layer_types(const FieldReader& text, ModelFacts& facts) {
  const json* list = text.array("layer_types");
  if (list == nullptr) return;
  if (static_cast<std::int64_t>(list->size()) != facts.num_hidden_layers) {
    text.fail("layer_types", "lists " + std::to_string(list->size()) + " layers but num_hidden_layers is " +
                                 std::to_string(facts.num_hidden_layers));
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_string()) {
      text.fail("layer_types[" + std::to_string(i) + "]", "must be a string");
    }
    facts.layer_types.push_back((*list)[i].get<std::string>());
  }
}

}  // namespace

void read_attention_window(const FieldReader& text, ModelFacts& facts) {
  switch (facts.family) {
    case Family::gemma3:
      read_gemma3_window(text, facts);
      break;
    case Family::qwen2:
    case Family::qwen3:
      read_qwen_window(text, facts);
      break;
    case Family::llama:
      // LlamaConfig has no window; only mistral's counts.
      if (facts.model_type == "mistral") read_mistral_window(text, facts);
      break;
    case Family::unknown:
      facts.sliding_window = text.positive_integer("sliding_window");
      break;
  }
  read_layer_types(text, facts);

  facts.layer_attention = derive_layer_attention(facts);
  const bool any_sliding = std::find(facts.layer_attention.begin(), facts.layer_attention.end(),
                                     LayerAttention::sliding) != facts.layer_attention.end();
  if (any_sliding && !facts.sliding_window) {
    text.fail("sliding_window", "has no size in effect, but layer_types lists sliding_attention layers");
  }
}

}  // namespace algenta::facts
