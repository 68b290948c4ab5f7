#include "facts/config_parse.hpp"

#include <string>

#include "facts/family_defaults.hpp"
#include "facts/family_map.hpp"
#include "facts/field_reader.hpp"
#include "facts/json_document.hpp"
#include "facts/rope_parse.hpp"
#include "facts/window_parse.hpp"

namespace algenta::facts {
namespace {

using nlohmann::json;

template <typename T>
T value_or_default(const std::optional<T>& value, const T& fallback, const FieldReader& reader,
                   std::string_view key, ModelFacts& facts) {
  if (value) return *value;
  facts.defaulted.push_back(reader.fact(key));
  return fallback;
}

std::string read_architecture(const FieldReader& top) {
  const json* list = top.array("architectures");
  if (list == nullptr || list->empty()) top.fail("architectures", "missing or empty");
  if (!list->front().is_string() || list->front().get_ref<const std::string&>().empty()) {
    top.fail("architectures[0]", "must be a non-empty string, got " + shown_value(list->front()));
  }
  return list->front().get<std::string>();
}

// Shapes. Defaults only where transformers derives one by rule (kv heads =
// heads; head_dim = hidden / heads); see family_defaults.hpp for why fixed
// model-shaped defaults are refused instead.
void read_shape(const FieldReader& text, ModelFacts& facts) {
  facts.hidden_size = text.required_positive_integer("hidden_size");
  facts.num_hidden_layers = text.required_positive_integer("num_hidden_layers");
  facts.num_attention_heads = text.required_positive_integer("num_attention_heads");
  facts.intermediate_size = text.required_positive_integer("intermediate_size");

  const bool gemma3 = facts.family == Family::gemma3;
  facts.vocab_size = gemma3 ? value_or_default(text.positive_integer("vocab_size"),
                                               defaults::kGemma3VocabSize, text, "vocab_size", facts)
                            : text.required_positive_integer("vocab_size");
  facts.max_position_embeddings =
      gemma3 ? value_or_default(text.positive_integer("max_position_embeddings"),
                                defaults::kGemma3MaxPositionEmbeddings, text,
                                "max_position_embeddings", facts)
             : text.required_positive_integer("max_position_embeddings");

  const auto kv_heads = text.positive_integer("num_key_value_heads");
  if (!kv_heads && (gemma3 || facts.model_type == "mistral")) {
    text.fail("num_key_value_heads",
              "missing; transformers would assume a fixed count for " + facts.model_type +
                  " rather than one per query head, so it must be stated");
  }
  facts.num_key_value_heads = value_or_default(kv_heads, facts.num_attention_heads, text,
                                               "num_key_value_heads", facts);
  if (facts.num_attention_heads % facts.num_key_value_heads != 0) {
    text.fail("num_key_value_heads",
              std::to_string(facts.num_key_value_heads) + " does not divide num_attention_heads " +
                  std::to_string(facts.num_attention_heads) + " into whole query groups");
  }

  const auto head_dim = text.positive_integer("head_dim");
  if (head_dim) {
    facts.head_dim = *head_dim;
    return;
  }
  if (gemma3 || facts.family == Family::qwen3) {
    text.fail("head_dim", "missing; transformers would assume a fixed size for " +
                              facts.model_type + ", so it must be stated");
  }
  if (facts.hidden_size % facts.num_attention_heads != 0) {
    text.fail("head_dim", "missing, and hidden_size " + std::to_string(facts.hidden_size) +
                              " is not a multiple of num_attention_heads " +
                              std::to_string(facts.num_attention_heads) +
                              ", so it cannot be derived");
  }
  facts.head_dim = facts.hidden_size / facts.num_attention_heads;
  facts.defaulted.push_back(text.fact("head_dim"));
}

void read_rope_and_norm(const FieldReader& text, ModelFacts& facts) {
  const bool gemma3 = facts.family == Family::gemma3;
  RopeFacts rope = read_rope(text);
  if (!rope.theta && !gemma3) text.fail("rope_theta", "missing");
  facts.rope_theta = value_or_default(rope.theta, defaults::kGemma3RopeTheta, text, "rope_theta", facts);
  facts.rope_scaling = std::move(rope.scaling);

  const auto eps = text.positive_number("rms_norm_eps");
  if (!eps && !gemma3) text.fail("rms_norm_eps", "missing");
  facts.rms_norm_eps = value_or_default(eps, defaults::kGemma3RmsNormEps, text, "rms_norm_eps", facts);

  if (!gemma3) return;
  auto local_theta = text.positive_number("rope_local_base_freq");
  if (!local_theta) local_theta = rope.local_theta;
  facts.rope_local_base_freq = value_or_default(local_theta, defaults::kGemma3RopeLocalBaseFreq,
                                                text, "rope_local_base_freq", facts);
  facts.query_pre_attn_scalar =
      value_or_default(text.positive_number("query_pre_attn_scalar"),
                       defaults::kGemma3QueryPreAttnScalar, text, "query_pre_attn_scalar", facts);
}

// "torch_dtype" and its newer spelling "dtype" must agree when both appear.
std::optional<std::string> read_dtype(const FieldReader& reader) {
  const auto legacy = reader.string("torch_dtype");
  const auto current = reader.string("dtype");
  if (legacy && current && *legacy != *current) {
    reader.fail("dtype", "is \"" + *current + "\" but torch_dtype says \"" + *legacy + "\"");
  }
  return legacy ? legacy : current;
}

// Activation, dtype, tying and biases. A nested text_config may leave dtype
// and tying to the wrapper, so `outer` is consulted second.
void read_layer_options(const FieldReader& text, const FieldReader& outer, ModelFacts& facts) {
  const bool gemma3 = facts.family == Family::gemma3;
  const bool known = facts.family != Family::unknown;

  std::optional<std::string> activation;
  if (gemma3) activation = text.string("hidden_activation");
  if (!activation) activation = text.string("hidden_act");
  if (activation) {
    facts.hidden_act = *activation;
  } else if (known) {
    facts.hidden_act = gemma3 ? defaults::kGemma3HiddenActivation : defaults::kDecoderHiddenAct;
    facts.defaulted.push_back(text.fact(gemma3 ? "hidden_activation" : "hidden_act"));
  }

  auto dtype = read_dtype(text);
  if (!dtype && facts.from_text_config) dtype = read_dtype(outer);
  facts.torch_dtype = dtype.value_or("");

  auto tie = text.boolean("tie_word_embeddings");
  if (!tie && facts.from_text_config) tie = outer.boolean("tie_word_embeddings");
  facts.tie_word_embeddings =
      value_or_default(tie, gemma3 ? defaults::kGemma3TieWordEmbeddings
                                   : defaults::kDecoderTieWordEmbeddings,
                       text, "tie_word_embeddings", facts);

  // Defaults are recorded only for families whose config class has the key.
  const bool has_attention_bias_key = facts.model_type == "llama" ||
                                      facts.family == Family::qwen3 || gemma3;
  const auto attention_bias = text.boolean("attention_bias");
  facts.attention_bias =
      has_attention_bias_key
          ? value_or_default(attention_bias,
                             gemma3 ? defaults::kGemma3AttentionBias : defaults::kDecoderAttentionBias,
                             text, "attention_bias", facts)
          : attention_bias.value_or(false);
  const auto mlp_bias = text.boolean("mlp_bias");
  facts.mlp_bias = facts.model_type == "llama"
                       ? value_or_default(mlp_bias, defaults::kLlamaMlpBias, text, "mlp_bias", facts)
                       : mlp_bias.value_or(false);
  // Qwen2Attention builds q/k/v with bias=True whatever the config says.
  facts.qkv_bias = facts.family == Family::qwen2 || facts.attention_bias;
  facts.qk_norm = facts.family == Family::qwen3 || gemma3;
}

void read_refusal_markers(const FieldReader& text, ModelFacts& facts) {
  facts.num_experts = text.integer("num_experts");
  facts.num_local_experts = text.integer("num_local_experts");
  facts.n_routed_experts = text.integer("n_routed_experts");
  facts.kv_lora_rank = text.integer("kv_lora_rank");
  facts.q_lora_rank = text.integer("q_lora_rank");
}

}  // namespace

ModelFacts parse_model_facts(std::string_view json_text, std::string_view source_name) {
  const std::string file(source_name);
  const json document = read_json_object(json_text, file);
  FieldReader top(document, file);

  ModelFacts facts;
  facts.source = file;
  facts.model_type = top.required_string("model_type");
  facts.architecture = read_architecture(top);
  facts.family = family_for_model_type(facts.model_type);
  top.set_missing_hint("(model_type \"" + facts.model_type + "\")");

  // gemma3 wraps its language model; transformers reads the text facts from
  // text_config alone, so the wrapper's own keys do not stand in for them.
  const json* text_config = nullptr;
  if (facts.model_type == "gemma3") {
    text_config = top.object("text_config");
    if (text_config == nullptr) {
      top.fail("text_config", "missing; a gemma3 config keeps its language model's facts there");
    }
    facts.from_text_config = true;
  }
  const FieldReader text = text_config ? top.nested(*text_config, "text_config") : top;

  read_shape(text, facts);
  read_rope_and_norm(text, facts);
  read_layer_options(text, top, facts);
  read_attention_window(text, facts);
  read_refusal_markers(text, facts);
  return facts;
}

}  // namespace algenta::facts
