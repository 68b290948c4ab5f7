// RoPE facts: the base theta and the scaling block. Configs spell these three
// ways: "rope_scaling" with "rope_type", older ones with "type", and
// transformers 5 writes "rope_parameters" (per layer type for gemma3).
#pragma once

#include <optional>

#include "facts/field_reader.hpp"
#include "facts/model_facts.hpp"

namespace algenta::facts {

struct RopeFacts {
  std::optional<double> theta;        // global layers
  std::optional<double> local_theta;  // gemma3 sliding layers, when stated
  RopeScaling scaling;
};

// Reads rope_theta, rope_scaling and rope_parameters from one config object.
// Contradictions between the spellings are errors, not silent choices.
RopeFacts read_rope(const FieldReader& config);

}  // namespace algenta::facts
