#include "verify/verify_inputs.hpp"

#include <climits>
#include <stdexcept>

#include "cli/checkpoint_probe.hpp"
#include "facts/config_parse.hpp"
#include "verify/verify_gates.hpp"

namespace algenta::host {
namespace fs = std::filesystem;

ModelLimits read_model_limits(const fs::path& model_dir) {
  const fs::path config = model_dir / "config.json";
  const facts::ModelFacts model =
      facts::parse_model_facts(read_checkpoint_config(model_dir), config.string());
  if (model.vocab_size < 1 || model.vocab_size > INT32_MAX) {
    throw std::runtime_error(config.string() + ": vocab_size " + std::to_string(model.vocab_size) +
                             " is outside [1, 2^31)");
  }
  if (model.max_position_embeddings < 1) {
    throw std::runtime_error(config.string() + ": max_position_embeddings " +
                             std::to_string(model.max_position_embeddings) + " is not positive");
  }
  return {static_cast<std::uint32_t>(model.vocab_size),
          static_cast<std::size_t>(model.max_position_embeddings)};
}

std::vector<std::string> context_refusals(const VerifyOptions& options,
                                          const TransformersReference* reference,
                                          std::size_t context, const std::string& who) {
  std::vector<std::string> refusals;
  const std::size_t tokens = options.tokens;
  for (const std::size_t length : options.lengths) {
    const std::size_t needed = context_needed(length, tokens);
    if (needed <= context) continue;
    std::string line = "--lengths " + std::to_string(length) + ": a " + std::to_string(length) +
                       "-token prompt and " + std::to_string(tokens) +
                       " generated tokens need a context of " + std::to_string(needed) + ", but " +
                       who + " allows " + std::to_string(context) + " tokens per sequence; ";
    line += context >= tokens ? "lengths 1.." + std::to_string(context - tokens + 1) +
                                    " fit with --tokens " + std::to_string(tokens)
                              : "no length fits with --tokens " + std::to_string(tokens);
    refusals.push_back(line);
  }
  if (reference != nullptr) {
    for (const ReferencePrompt& prompt : reference->prompts) {
      const std::size_t needed = context_needed(prompt.ids.size(), prompt.greedy.size());
      if (needed <= context) continue;
      refusals.push_back("--transformers-reference prompt \"" + prompt.name +
                         "\": " + std::to_string(prompt.ids.size()) + " ids and " +
                         std::to_string(prompt.greedy.size()) +
                         " greedy tokens need a context of " + std::to_string(needed) + ", but " +
                         who + " allows " + std::to_string(context) + " tokens per sequence");
    }
  }
  return refusals;
}

std::optional<std::string> vocabulary_mismatch(const TransformersReference& reference,
                                               std::uint32_t vocab) {
  for (const ReferencePrompt& prompt : reference.prompts) {
    for (const auto* list : {&prompt.ids, &prompt.greedy}) {
      for (std::size_t i = 0; i < list->size(); ++i) {
        if (static_cast<std::uint32_t>((*list)[i]) < vocab) continue;
        return "--transformers-reference prompt \"" + prompt.name +
               "\": " + (list == &prompt.ids ? "ids[" : "greedy[") + std::to_string(i) +
               "] = " + std::to_string((*list)[i]) + " is outside this model's vocabulary [0, " +
               std::to_string(vocab) + "); the reference was made for another checkpoint";
      }
    }
  }
  return std::nullopt;
}

}  // namespace algenta::host
