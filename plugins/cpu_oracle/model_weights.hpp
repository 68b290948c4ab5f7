// The model as the oracle computes it: its shape, what its family adds to
// the shared decoder layer, and views of every weight over the mapped
// resident blob (names and shapes as transformers' *ForCausalLM state dicts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "checkpoint/resident_reader.hpp"
#include "facts/model_facts.hpp"
#include "matmul.hpp"
#include "rope.hpp"

namespace algenta::oracle {

// What a family adds to the one decoder layer every family shares.
struct FamilyDescription {
  bool qkv_bias = false;  // q/k/v_proj carry a bias (qwen2 always; attention_bias elsewhere)
  bool o_bias = false;    // o_proj carries a bias (attention_bias, except in qwen2)
  bool qk_norm = false;   // per-head RMSNorm of q and k before RoPE (qwen3)
};

FamilyDescription describe_family(const facts::ModelFacts& facts);

struct ModelShape {
  std::size_t hidden = 0;
  std::size_t layers = 0;
  std::size_t heads = 0;
  std::size_t kv_heads = 0;
  std::size_t head_dim = 0;
  std::size_t intermediate = 0;
  std::size_t vocab = 0;
  std::size_t max_positions = 0;
  float rms_norm_eps = 0.0f;
  bool tied_embeddings = false;
  RopeConfig rope;

  std::size_t q_dim() const { return heads * head_dim; }
  std::size_t kv_dim() const { return kv_heads * head_dim; }
};

// From facts already checked against the oracle's declared ranges.
ModelShape shape_of(const facts::ModelFacts& facts);

struct LayerWeights {
  std::vector<float> input_norm;           // [hidden]
  std::vector<float> post_attention_norm;  // [hidden]
  MatrixView q_proj, k_proj, v_proj, o_proj;
  std::vector<float> q_bias, k_bias, v_bias, o_bias;  // empty when the family has none
  std::vector<float> q_norm, k_norm;                  // [head_dim], empty without qk_norm
  MatrixView gate_proj, up_proj, down_proj;
};

struct ModelWeights {
  MatrixView embed_tokens;  // [vocab, hidden]
  MatrixView lm_head;       // [vocab, hidden]; embed_tokens when tied
  std::vector<float> final_norm;
  std::vector<LayerWeights> layers;
  std::uint64_t bytes = 0;  // as held: matrices in their stored dtype, vectors in f32
};

// Views into `checkpoint`, which must outlive them. Throws
// plugin::StatusError (INVALID_ARGUMENT) naming a tensor that is missing,
// has another shape, or is stored in a dtype other than f32, bf16, f16.
ModelWeights bind_weights(const checkpoint::ResidentCheckpoint& checkpoint, const ModelShape& shape,
                          const FamilyDescription& family);

}  // namespace algenta::oracle
