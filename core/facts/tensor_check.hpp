// Checks a checkpoint's tensor headers (names, dtypes, shapes; never the
// data) against the tensors its facts call for.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "facts/conformance.hpp"
#include "facts/model_facts.hpp"

namespace algenta::facts {

struct ObservedTensor {
  std::string name;   // as stored
  std::string dtype;  // safetensors spelling: "BF16", "F16", "F32", ...
  std::vector<std::int64_t> shape;
  std::string file;   // shard it lives in, for messages
};

struct TensorCheck {
  std::vector<Refusal> refusals;
  // canonical (text-model) name -> stored name, for every expected tensor found
  std::map<std::string, std::string> stored_name;
  // stored tensors deliberately left out, with why (vision tower, tied head)
  std::vector<std::string> ignored;
};

// The weight dtypes a checkpoint may be stored in.
bool is_supported_weight_dtype(const std::string& dtype);

// Multimodal gemma3 checkpoints keep the text model under a prefix
// ("language_model.model." or "model.language_model."); this maps a stored
// name to the *ForCausalLM name, or "" for a tensor outside the text model.
std::string canonical_tensor_name(const ModelFacts& facts, const std::string& stored);

TensorCheck check_tensors(const ModelFacts& facts, const std::vector<ObservedTensor>& observed);

}  // namespace algenta::facts
