// The decoder model as every engine computes it: its shape and what its
// family adds to the one decoder layer all families share.
#pragma once

#include <cstddef>

#include "facts/model_facts.hpp"
#include "rope.hpp"

namespace algenta::decoder {

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

}  // namespace algenta::decoder
