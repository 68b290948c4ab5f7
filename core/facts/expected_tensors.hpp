// The tensors a checkpoint of a known family must hold, by name and shape,
// exactly as transformers' *ForCausalLM state dicts name them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "facts/model_facts.hpp"

namespace algenta::facts {

struct ExpectedTensor {
  std::string name;
  std::vector<std::int64_t> shape;
};

// Empty for Family::unknown (nothing can be expected of it).
std::vector<ExpectedTensor> expected_tensors(const ModelFacts& facts);

}  // namespace algenta::facts
