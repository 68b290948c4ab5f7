#include "device_weights.hpp"

#include <string>

#include "checkpoint/dtype_convert.hpp"
#include "tensor_lookup.hpp"

namespace algenta::cuda {
namespace {

using checkpoint::Dtype;

std::int64_t count_of(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (const std::int64_t d : shape) count *= d;
  return count;
}

}  // namespace

DeviceWeights::DeviceWeights(const decoder::ModelShape& s,
                             const decoder::FamilyDescription& family, Dtype element_dtype)
    : element_dtype_(element_dtype) {
  const auto hidden = static_cast<std::int64_t>(s.hidden);
  const auto q_dim = static_cast<std::int64_t>(s.q_dim());
  const auto kv_dim = static_cast<std::int64_t>(s.kv_dim());
  const auto inter = static_cast<std::int64_t>(s.intermediate);
  const auto vocab = static_cast<std::int64_t>(s.vocab);
  const auto head_dim = static_cast<std::int64_t>(s.head_dim);

  embed_ = add({{"model.embed_tokens.weight", {vocab, hidden}}}, element_dtype);
  lm_head_ = s.tied_embeddings ? embed_ : add({{"lm_head.weight", {vocab, hidden}}}, element_dtype);
  final_norm_ = add({{"model.norm.weight", {hidden}}}, Dtype::F32);
  for (std::size_t i = 0; i < s.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    LayerPieces layer;
    layer.qkv = add({{p + "self_attn.q_proj.weight", {q_dim, hidden}},
                     {p + "self_attn.k_proj.weight", {kv_dim, hidden}},
                     {p + "self_attn.v_proj.weight", {kv_dim, hidden}}},
                    element_dtype);
    if (family.qkv_bias) {
      layer.qkv_bias = add({{p + "self_attn.q_proj.bias", {q_dim}},
                            {p + "self_attn.k_proj.bias", {kv_dim}},
                            {p + "self_attn.v_proj.bias", {kv_dim}}},
                           Dtype::F32);
    }
    layer.o = add({{p + "self_attn.o_proj.weight", {hidden, q_dim}}}, element_dtype);
    if (family.o_bias) layer.o_bias = add({{p + "self_attn.o_proj.bias", {hidden}}}, Dtype::F32);
    layer.gate_up = add({{p + "mlp.gate_proj.weight", {inter, hidden}},
                         {p + "mlp.up_proj.weight", {inter, hidden}}},
                        element_dtype);
    layer.down = add({{p + "mlp.down_proj.weight", {hidden, inter}}}, element_dtype);
    layer.input_norm = add({{p + "input_layernorm.weight", {hidden}}}, Dtype::F32);
    layer.post_norm = add({{p + "post_attention_layernorm.weight", {hidden}}}, Dtype::F32);
    if (family.qk_norm) {
      layer.q_norm = add({{p + "self_attn.q_norm.weight", {head_dim}}}, Dtype::F32);
      layer.k_norm = add({{p + "self_attn.k_norm.weight", {head_dim}}}, Dtype::F32);
    }
    layers_.push_back(layer);
  }
}

int DeviceWeights::add(std::vector<Source> sources, Dtype dtype) {
  Piece piece;
  std::int64_t elements = 0;
  for (const Source& source : sources) elements += count_of(source.shape);
  piece.sources = std::move(sources);
  piece.dtype = dtype;
  piece.bytes = static_cast<std::size_t>(elements) * checkpoint::dtype_element_size(dtype);
  piece.offset = arena_.plan(piece.bytes);
  pieces_.push_back(std::move(piece));
  return static_cast<int>(pieces_.size()) - 1;
}

void DeviceWeights::upload(const checkpoint::ResidentCheckpoint& checkpoint) {
  // Every tensor is checked before the device is touched.
  for (const Piece& piece : pieces_) {
    for (const Source& source : piece.sources) {
      const checkpoint::ResidentTensor tensor =
          decoder::require_tensor(checkpoint, source.name, source.shape);
      if (!checkpoint::is_convertible_float(tensor.info.dtype)) {
        decoder::refuse_tensor(source.name, "stored as " +
                                                std::string(checkpoint::dtype_name(tensor.info.dtype)) +
                                                "; the CUDA engine reads F32, BF16 and F16");
      }
    }
  }
  arena_.allocate("the model's weights");

  std::vector<std::byte> staging;
  for (const Piece& piece : pieces_) {
    staging.resize(piece.bytes);
    std::size_t filled = 0;
    for (const Source& source : piece.sources) {
      const checkpoint::ResidentTensor tensor = checkpoint.tensor(source.name);
      const std::size_t bytes =
          static_cast<std::size_t>(count_of(source.shape)) * checkpoint::dtype_element_size(piece.dtype);
      checkpoint::convert_elements(tensor.info.dtype, tensor.bytes, piece.dtype,
                                   std::span<std::byte>(staging.data() + filled, bytes));
      filled += bytes;
    }
    check_cuda(cudaMemcpy(arena_.at<std::byte>(piece.offset), staging.data(), piece.bytes,
                          cudaMemcpyHostToDevice),
               "uploading " + piece.sources.front().name);
  }
}

const Element* DeviceWeights::embed_tokens() const { return piece<Element>(embed_); }
const Element* DeviceWeights::lm_head() const { return piece<Element>(lm_head_); }
const float* DeviceWeights::final_norm() const { return piece<float>(final_norm_); }

DeviceLayer DeviceWeights::layer(std::size_t index) const {
  const LayerPieces& l = layers_[index];
  DeviceLayer layer;
  layer.qkv = piece<Element>(l.qkv);
  layer.qkv_bias = piece<float>(l.qkv_bias);
  layer.o = piece<Element>(l.o);
  layer.o_bias = piece<float>(l.o_bias);
  layer.gate_up = piece<Element>(l.gate_up);
  layer.down = piece<Element>(l.down);
  layer.input_norm = piece<float>(l.input_norm);
  layer.post_attention_norm = piece<float>(l.post_norm);
  layer.q_norm = piece<float>(l.q_norm);
  layer.k_norm = piece<float>(l.k_norm);
  return layer;
}

}  // namespace algenta::cuda
