#include "model_shape.hpp"

namespace algenta::decoder {
namespace {

RopeConfig rope_config_of(const facts::ModelFacts& facts) {
  RopeConfig rope;
  rope.theta = facts.rope_theta;
  const facts::RopeScaling& s = facts.rope_scaling;
  if (s.type == facts::RopeScalingType::linear) {
    rope.scaling = RopeConfig::Scaling::linear;
    rope.factor = s.factor.value_or(1.0);
  } else if (s.type == facts::RopeScalingType::llama3) {
    rope.scaling = RopeConfig::Scaling::llama3;
    rope.factor = s.factor.value_or(1.0);
    rope.low_freq_factor = s.low_freq_factor.value_or(1.0);
    rope.high_freq_factor = s.high_freq_factor.value_or(4.0);
    rope.original_max_position_embeddings =
        static_cast<double>(s.original_max_position_embeddings.value_or(8192));
  }
  return rope;
}

}  // namespace

FamilyDescription describe_family(const facts::ModelFacts& facts) {
  // transformers: Qwen2Attention builds q/k/v with bias=True and o_proj
  // without; Llama and Qwen3 put config.attention_bias on all four.
  const bool qwen2 = facts.family == facts::Family::qwen2;
  return {
      .qkv_bias = qwen2 || facts.attention_bias,
      .o_bias = !qwen2 && facts.attention_bias,
      .qk_norm = facts.family == facts::Family::qwen3,
  };
}

ModelShape shape_of(const facts::ModelFacts& facts) {
  ModelShape shape;
  shape.hidden = static_cast<std::size_t>(facts.hidden_size);
  shape.layers = static_cast<std::size_t>(facts.num_hidden_layers);
  shape.heads = static_cast<std::size_t>(facts.num_attention_heads);
  shape.kv_heads = static_cast<std::size_t>(facts.num_key_value_heads);
  shape.head_dim = static_cast<std::size_t>(facts.head_dim);
  shape.intermediate = static_cast<std::size_t>(facts.intermediate_size);
  shape.vocab = static_cast<std::size_t>(facts.vocab_size);
  shape.max_positions = static_cast<std::size_t>(facts.max_position_embeddings);
  shape.rms_norm_eps = static_cast<float>(facts.rms_norm_eps);
  shape.tied_embeddings = facts.tie_word_embeddings;
  shape.rope = rope_config_of(facts);
  return shape;
}

}  // namespace algenta::decoder
