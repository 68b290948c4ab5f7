// Reads a checkpoint's safetensors headers (never the data) and checks the
// tensors against the facts.
#pragma once

#include <filesystem>

#include "facts/model_facts.hpp"
#include "facts/tensor_check.hpp"

namespace algenta::host {

// Throws checkpoint::CheckpointError for unreadable or malformed files.
facts::TensorCheck probe_checkpoint_tensors(const std::filesystem::path& checkpoint_dir,
                                            const facts::ModelFacts& facts);

}  // namespace algenta::host
