#include "sampling/penalties.hpp"

#include <algorithm>
#include <string>

namespace algenta::sampling {
namespace {

void check_ids(std::span<const std::int32_t> ids, const char* list, std::size_t vocab) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= vocab)
      throw SamplingError(std::string(list) + "[" + std::to_string(i) + "] = " +
                          std::to_string(ids[i]) + " is outside the vocabulary [0, " +
                          std::to_string(vocab) + ")");
  }
}

std::vector<std::int32_t> sorted(std::span<const std::int32_t> ids) {
  std::vector<std::int32_t> copy(ids.begin(), ids.end());
  std::sort(copy.begin(), copy.end());
  return copy;
}

}  // namespace

std::vector<double> penalized_logits(std::span<const float> logits,
                                     std::span<const std::int32_t> prompt_tokens,
                                     std::span<const std::int32_t> output_tokens,
                                     const SamplingParams& params) {
  check_ids(prompt_tokens, "prompt_tokens", logits.size());
  check_ids(output_tokens, "output_tokens", logits.size());
  std::vector<double> z(logits.begin(), logits.end());

  // Only the tokens in the history change, so walk them, not the vocabulary.
  if (params.repetition_penalty != 1.0) {
    std::vector<std::int32_t> seen = sorted(prompt_tokens);
    seen.insert(seen.end(), output_tokens.begin(), output_tokens.end());
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (std::int32_t id : seen) {
      double& v = z[static_cast<std::size_t>(id)];
      v = v > 0.0 ? v / params.repetition_penalty : v * params.repetition_penalty;
    }
  }
  if (params.frequency_penalty != 0.0 || params.presence_penalty != 0.0) {
    const std::vector<std::int32_t> output = sorted(output_tokens);
    for (std::size_t start = 0; start < output.size();) {
      std::size_t end = start;
      while (end < output.size() && output[end] == output[start]) ++end;
      double& v = z[static_cast<std::size_t>(output[start])];
      v = v - params.frequency_penalty * static_cast<double>(end - start);
      v = v - params.presence_penalty;
      start = end;
    }
  }
  return z;
}

}  // namespace algenta::sampling
