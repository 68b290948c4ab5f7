// The model as the oracle computes it: its shape, what its family adds to
// the shared decoder layer, and views of every weight over the mapped
// resident blob (names and shapes as transformers' *ForCausalLM state dicts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "checkpoint/resident_reader.hpp"
#include "matmul.hpp"
#include "model_shape.hpp"

namespace algenta::oracle {

using decoder::apply_rope;
using decoder::describe_family;
using decoder::FamilyDescription;
using decoder::ModelShape;
using decoder::rope_angles;
using decoder::rope_inverse_frequencies;
using decoder::RopeConfig;
using decoder::shape_of;

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
  std::uint64_t bytes = 0;  // as held: matrices in their held dtype, vectors in f32
  // Matrices rounded to another dtype than the stored one (the operator's
  // consent, to run the same weights as a checked engine); the views above
  // point into these. Moving the outer vector keeps the inner buffers.
  std::vector<std::vector<std::byte>> rounded;
};

// Views into `checkpoint`, which must outlive them; matrices are held in
// `matrix_dtype` (the stored dtype, or a rounding of it). Throws
// plugin::StatusError (INVALID_ARGUMENT) naming a tensor that is missing,
// has another shape, or is stored in a dtype other than f32, bf16, f16.
ModelWeights bind_weights(const checkpoint::ResidentCheckpoint& checkpoint, const ModelShape& shape,
                          const FamilyDescription& family, checkpoint::Dtype matrix_dtype);

}  // namespace algenta::oracle
