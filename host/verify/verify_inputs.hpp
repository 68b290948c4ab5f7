// What `algenta-host verify` checks before it loads anything: the model's
// vocabulary and context from config.json, requested prompts that cannot fit
// the context, a reference made for another vocabulary. Each refusal is one
// line naming the flag, the value and the allowed range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "verify/transformers_reference.hpp"

namespace algenta::host {

struct ModelLimits {
  std::uint32_t vocab = 0;
  std::size_t context = 0;  // max_position_embeddings
};

// From model_dir/config.json; throws (a std::exception) naming the file.
ModelLimits read_model_limits(const std::filesystem::path& model_dir);

// One line per requested prompt (--lengths with --tokens, reference prompts)
// that cannot fit `context` tokens; `who` names what sets the context.
std::vector<std::string> context_refusals(const VerifyOptions& options,
                                          const TransformersReference* reference,
                                          std::size_t context, const std::string& who);

// The first reference id outside [0, vocab), said as a sentence.
std::optional<std::string> vocabulary_mismatch(const TransformersReference& reference,
                                               std::uint32_t vocab);

}  // namespace algenta::host
