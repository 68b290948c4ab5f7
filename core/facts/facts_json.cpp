#include "facts/facts_json.hpp"

#include <optional>
#include <string>

namespace algenta::facts {
namespace {

using nlohmann::json;

template <typename T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json rope_scaling_to_json(const RopeScaling& scaling) {
  return json{
      {"type", std::string(rope_scaling_type_name(scaling.type))},
      {"name", scaling.name},
      {"factor", or_null(scaling.factor)},
      {"low_freq_factor", or_null(scaling.low_freq_factor)},
      {"high_freq_factor", or_null(scaling.high_freq_factor)},
      {"original_max_position_embeddings", or_null(scaling.original_max_position_embeddings)},
      {"beta_fast", or_null(scaling.beta_fast)},
      {"beta_slow", or_null(scaling.beta_slow)},
  };
}

json layer_attention_to_json(const std::vector<LayerAttention>& kinds) {
  json list = json::array();
  for (const auto kind : kinds) list.push_back(std::string(layer_attention_name(kind)));
  return list;
}

}  // namespace

json facts_to_json(const ModelFacts& facts) {
  return json{
      {"source", facts.source},
      {"model_type", facts.model_type},
      {"architecture", facts.architecture},
      {"family", std::string(family_name(facts.family))},
      {"from_text_config", facts.from_text_config},
      {"hidden_size", facts.hidden_size},
      {"num_hidden_layers", facts.num_hidden_layers},
      {"num_attention_heads", facts.num_attention_heads},
      {"num_key_value_heads", facts.num_key_value_heads},
      {"head_dim", facts.head_dim},
      {"intermediate_size", facts.intermediate_size},
      {"vocab_size", facts.vocab_size},
      {"max_position_embeddings", facts.max_position_embeddings},
      {"rope_theta", facts.rope_theta},
      {"rope_scaling", rope_scaling_to_json(facts.rope_scaling)},
      {"rms_norm_eps", facts.rms_norm_eps},
      {"tie_word_embeddings", facts.tie_word_embeddings},
      {"attention_bias", facts.attention_bias},
      {"qkv_bias", facts.qkv_bias},
      {"mlp_bias", facts.mlp_bias},
      {"qk_norm", facts.qk_norm},
      {"hidden_act", facts.hidden_act},
      {"torch_dtype", facts.torch_dtype},
      {"sliding_window", or_null(facts.sliding_window)},
      {"use_sliding_window", or_null(facts.use_sliding_window)},
      {"max_window_layers", or_null(facts.max_window_layers)},
      {"sliding_window_pattern", or_null(facts.sliding_window_pattern)},
      {"layer_types", facts.layer_types},
      {"layer_attention", layer_attention_to_json(facts.layer_attention)},
      {"query_pre_attn_scalar", or_null(facts.query_pre_attn_scalar)},
      {"rope_local_base_freq", or_null(facts.rope_local_base_freq)},
      {"num_experts", or_null(facts.num_experts)},
      {"num_local_experts", or_null(facts.num_local_experts)},
      {"n_routed_experts", or_null(facts.n_routed_experts)},
      {"kv_lora_rank", or_null(facts.kv_lora_rank)},
      {"q_lora_rank", or_null(facts.q_lora_rank)},
      {"mixture_of_experts_markers", mixture_of_experts_markers(facts)},
      {"latent_attention_markers", latent_attention_markers(facts)},
      {"defaulted", facts.defaulted},
  };
}

}  // namespace algenta::facts
