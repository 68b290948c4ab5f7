#include "model_weights.hpp"

#include <string>

#include "checkpoint/dtype_convert.hpp"
#include "plugin_support/plugin_error.hpp"
#include "tensor_lookup.hpp"

namespace algenta::oracle {
namespace {

using checkpoint::Dtype;

using decoder::refuse_tensor;

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
  Binder(const checkpoint::ResidentCheckpoint& checkpoint, Dtype matrix_dtype,
         std::vector<std::vector<std::byte>>& rounded)
      : checkpoint_(checkpoint), matrix_dtype_(matrix_dtype), rounded_(rounded) {}

  MatrixView matrix(const std::string& name, std::size_t rows, std::size_t cols) {
    const checkpoint::ResidentTensor tensor =
        find(name, {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)});
    const ElementType stored = element_type_of(name, tensor.info.dtype);
    if (tensor.info.dtype == matrix_dtype_) {
      bytes_ += tensor.bytes.size();
      return {tensor.bytes.data(), stored, rows, cols};
    }
    std::vector<std::byte>& held = rounded_.emplace_back(
        rows * cols * checkpoint::dtype_element_size(matrix_dtype_));
    checkpoint::convert_elements(tensor.info.dtype, tensor.bytes, matrix_dtype_, held);
    bytes_ += held.size();
    return {held.data(), element_type_of(name, matrix_dtype_), rows, cols};
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
    return decoder::require_tensor(checkpoint_, name, shape);
  }

  const checkpoint::ResidentCheckpoint& checkpoint_;
  Dtype matrix_dtype_;
  std::vector<std::vector<std::byte>>& rounded_;
  std::uint64_t bytes_ = 0;
};

}  // namespace

ModelWeights bind_weights(const checkpoint::ResidentCheckpoint& checkpoint, const ModelShape& s,
                          const FamilyDescription& family, Dtype matrix_dtype) {
  ModelWeights weights;
  Binder bind(checkpoint, matrix_dtype, weights.rounded);
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
