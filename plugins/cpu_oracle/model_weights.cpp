#include "model_weights.hpp"

#include <string>

#include "checkpoint/dtype_convert.hpp"
#include "plugin_support/plugin_error.hpp"

namespace algenta::oracle {
namespace {

using checkpoint::Dtype;

[[noreturn]] void refuse_tensor(const std::string& name, const std::string& problem) {
  throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, "tensor " + name + ": " + problem};
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  return text + "]";
}

ElementType element_type_of(const std::string& name, Dtype dtype) {
  switch (dtype) {
    case Dtype::F32:
      return ElementType::f32;
    case Dtype::BF16:
      return ElementType::bf16;
    case Dtype::F16:
      return ElementType::f16;
    default:
      refuse_tensor(name, "stored as " + std::string(checkpoint::dtype_name(dtype)) +
                              "; the oracle reads F32, BF16 and F16");
  }
}

// Binds tensors by name, adding up what they hold.
class Binder {
 public:
  explicit Binder(const checkpoint::ResidentCheckpoint& checkpoint) : checkpoint_(checkpoint) {}

  MatrixView matrix(const std::string& name, std::size_t rows, std::size_t cols) {
    const checkpoint::ResidentTensor tensor =
        find(name, {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)});
    bytes_ += tensor.bytes.size();
    return {tensor.bytes.data(), element_type_of(name, tensor.info.dtype), rows, cols};
  }

  // Small vectors (norms, biases) are widened once into f32.
  std::vector<float> vector(const std::string& name, std::size_t size) {
    const checkpoint::ResidentTensor tensor = find(name, {static_cast<std::int64_t>(size)});
    const Dtype dtype = tensor.info.dtype;
    element_type_of(name, dtype);
    std::vector<float> values(size);
    checkpoint::convert_elements(dtype, tensor.bytes, Dtype::F32,
                                 std::as_writable_bytes(std::span<float>(values)));
    bytes_ += values.size() * sizeof(float);
    return values;
  }

  std::uint64_t bytes() const { return bytes_; }

 private:
  checkpoint::ResidentTensor find(const std::string& name, const std::vector<std::int64_t>& shape) {
    if (checkpoint_.find(name) == nullptr) refuse_tensor(name, "missing from the checkpoint");
    checkpoint::ResidentTensor tensor = checkpoint_.tensor(name);
    if (tensor.info.shape != shape) {
      refuse_tensor(name, "shape " + shape_text(tensor.info.shape) + ", the model needs " +
                              shape_text(shape));
    }
    return tensor;
  }

  const checkpoint::ResidentCheckpoint& checkpoint_;
  std::uint64_t bytes_ = 0;
};

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

ModelWeights bind_weights(const checkpoint::ResidentCheckpoint& checkpoint, const ModelShape& s,
                          const FamilyDescription& family) {
  Binder bind(checkpoint);
  ModelWeights weights;
  weights.embed_tokens = bind.matrix("model.embed_tokens.weight", s.vocab, s.hidden);
  weights.final_norm = bind.vector("model.norm.weight", s.hidden);
  weights.lm_head =
      s.tied_embeddings ? weights.embed_tokens : bind.matrix("lm_head.weight", s.vocab, s.hidden);

  weights.layers.resize(s.layers);
  for (std::size_t i = 0; i < s.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    LayerWeights& layer = weights.layers[i];
    layer.input_norm = bind.vector(p + "input_layernorm.weight", s.hidden);
    layer.post_attention_norm = bind.vector(p + "post_attention_layernorm.weight", s.hidden);
    layer.q_proj = bind.matrix(p + "self_attn.q_proj.weight", s.q_dim(), s.hidden);
    layer.k_proj = bind.matrix(p + "self_attn.k_proj.weight", s.kv_dim(), s.hidden);
    layer.v_proj = bind.matrix(p + "self_attn.v_proj.weight", s.kv_dim(), s.hidden);
    layer.o_proj = bind.matrix(p + "self_attn.o_proj.weight", s.hidden, s.q_dim());
    if (family.qkv_bias) {
      layer.q_bias = bind.vector(p + "self_attn.q_proj.bias", s.q_dim());
      layer.k_bias = bind.vector(p + "self_attn.k_proj.bias", s.kv_dim());
      layer.v_bias = bind.vector(p + "self_attn.v_proj.bias", s.kv_dim());
    }
    if (family.o_bias) layer.o_bias = bind.vector(p + "self_attn.o_proj.bias", s.hidden);
    if (family.qk_norm) {
      layer.q_norm = bind.vector(p + "self_attn.q_norm.weight", s.head_dim);
      layer.k_norm = bind.vector(p + "self_attn.k_norm.weight", s.head_dim);
    }
    layer.gate_proj = bind.matrix(p + "mlp.gate_proj.weight", s.intermediate, s.hidden);
    layer.up_proj = bind.matrix(p + "mlp.up_proj.weight", s.intermediate, s.hidden);
    layer.down_proj = bind.matrix(p + "mlp.down_proj.weight", s.hidden, s.intermediate);
  }
  weights.bytes = bind.bytes();
  return weights;
}

}  // namespace algenta::oracle
