#include "facts/expected_tensors.hpp"

namespace algenta::facts {

std::vector<ExpectedTensor> expected_tensors(const ModelFacts& f) {
  std::vector<ExpectedTensor> out;
  if (f.family == Family::unknown) return out;
  const std::int64_t h = f.hidden_size;
  const std::int64_t q = f.num_attention_heads * f.head_dim;
  const std::int64_t kv = f.num_key_value_heads * f.head_dim;
  const std::int64_t inter = f.intermediate_size;
  // qwen2 biases q/k/v only; elsewhere attention_bias covers all four.
  const bool qkv_bias = f.qkv_bias || f.attention_bias;
  const bool o_bias = f.attention_bias && f.family != Family::qwen2;

  out.push_back({"model.embed_tokens.weight", {f.vocab_size, h}});
  out.push_back({"model.norm.weight", {h}});
  if (!f.tie_word_embeddings) out.push_back({"lm_head.weight", {f.vocab_size, h}});

  for (std::int64_t i = 0; i < f.num_hidden_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    out.push_back({p + "input_layernorm.weight", {h}});
    out.push_back({p + "post_attention_layernorm.weight", {h}});
    out.push_back({p + "self_attn.q_proj.weight", {q, h}});
    out.push_back({p + "self_attn.k_proj.weight", {kv, h}});
    out.push_back({p + "self_attn.v_proj.weight", {kv, h}});
    out.push_back({p + "self_attn.o_proj.weight", {h, q}});
    out.push_back({p + "mlp.gate_proj.weight", {inter, h}});
    out.push_back({p + "mlp.up_proj.weight", {inter, h}});
    out.push_back({p + "mlp.down_proj.weight", {h, inter}});
    if (qkv_bias) {
      out.push_back({p + "self_attn.q_proj.bias", {q}});
      out.push_back({p + "self_attn.k_proj.bias", {kv}});
      out.push_back({p + "self_attn.v_proj.bias", {kv}});
    }
    if (o_bias) out.push_back({p + "self_attn.o_proj.bias", {h}});
    if (f.mlp_bias) {
      out.push_back({p + "mlp.gate_proj.bias", {inter}});
      out.push_back({p + "mlp.up_proj.bias", {inter}});
      out.push_back({p + "mlp.down_proj.bias", {h}});
    }
    if (f.qk_norm) {
      out.push_back({p + "self_attn.q_norm.weight", {f.head_dim}});
      out.push_back({p + "self_attn.k_norm.weight", {f.head_dim}});
    }
    if (f.family == Family::gemma3) {
      out.push_back({p + "pre_feedforward_layernorm.weight", {h}});
      out.push_back({p + "post_feedforward_layernorm.weight", {h}});
    }
  }
  return out;
}

}  // namespace algenta::facts
