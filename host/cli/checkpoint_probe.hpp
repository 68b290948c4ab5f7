// What conform and prepare read of a Hugging Face checkpoint directory:
// its config.json text and its tensors' headers, checked against the facts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/sharded_checkpoint.hpp"
#include "facts/model_facts.hpp"
#include "facts/tensor_check.hpp"

namespace algenta::host {

// Why prepare would not convert a model of these facts: an unknown family,
// or a mixture-of-experts or latent-attention marker. Empty when it would.
std::vector<facts::Refusal> unconvertible_model(const facts::ModelFacts& model);

// DIR/config.json as text; throws checkpoint::CheckpointError naming the
// file when it is missing or unreadable.
std::string read_checkpoint_config(const std::filesystem::path& checkpoint_dir);

// Every tensor of every shard, as the facts check sees it.
std::vector<facts::ObservedTensor> observed_tensors(const checkpoint::ShardedCheckpoint& checkpoint);

struct TensorProbe {
  facts::TensorCheck check;
  // The resident dtype `prepare` keeps these weights in: the stored dtype of
  // the expected tensors, or f32 for a mix ("bf16", "f16", "f32"; empty when
  // none is a float tensor).
  std::string weight_dtype;
};

// Reads the safetensors headers only (never the data) and checks the tensors
// against the facts. Throws checkpoint::CheckpointError for unreadable or
// malformed files.
TensorProbe probe_checkpoint_tensors(const std::filesystem::path& checkpoint_dir,
                                     const facts::ModelFacts& facts);

// The dtype that keeps every stored value of the expected tensors: the
// common one, or F32 for a mix (f32 holds every bf16 and f16 value).
checkpoint::Dtype value_keeping_dtype(const checkpoint::ShardedCheckpoint& checkpoint,
                                      const facts::TensorCheck& check);

}  // namespace algenta::host
