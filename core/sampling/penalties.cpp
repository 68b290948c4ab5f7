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

// One token's penalties, in the order of the header.
double penalized(double v, const SamplingParams& params, std::int32_t output_count) {
  if (params.repetition_penalty != 1.0)
    v = v > 0.0 ? v / params.repetition_penalty : v * params.repetition_penalty;
  if ((params.frequency_penalty != 0.0 || params.presence_penalty != 0.0) && output_count > 0) {
    v = v - params.frequency_penalty * static_cast<double>(output_count);
    v = v - params.presence_penalty;
  }
  return v;
}

}  // namespace

std::vector<PenaltyToken> penalty_history(std::span<const std::int32_t> prompt_tokens,
                                          std::span<const std::int32_t> output_tokens,
                                          bool repetition, bool counts) {
  std::vector<PenaltyToken> history;
  if (!repetition && !counts) return history;
  std::vector<std::int32_t> output(output_tokens.begin(), output_tokens.end());
  std::sort(output.begin(), output.end());
  std::vector<std::int32_t> seen = output;
  if (repetition) seen.insert(seen.end(), prompt_tokens.begin(), prompt_tokens.end());
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  for (std::int32_t token : seen) {
    const auto [first, last] = std::equal_range(output.begin(), output.end(), token);
    history.push_back({token, static_cast<std::int32_t>(last - first)});
  }
  return history;
}

std::vector<double> penalized_logits(std::span<const float> logits,
                                     std::span<const std::int32_t> prompt_tokens,
                                     std::span<const std::int32_t> output_tokens,
                                     const SamplingParams& params) {
  check_ids(prompt_tokens, "prompt_tokens", logits.size());
  check_ids(output_tokens, "output_tokens", logits.size());
  std::vector<double> z(logits.begin(), logits.end());
  // Only the tokens in the history change, so walk them, not the vocabulary.
  const bool repetition = params.repetition_penalty != 1.0;
  const bool counts = params.frequency_penalty != 0.0 || params.presence_penalty != 0.0;
  for (const PenaltyToken& t : penalty_history(prompt_tokens, output_tokens, repetition, counts)) {
    double& v = z[static_cast<std::size_t>(t.token)];
    v = penalized(v, params, t.output_count);
  }
  return z;
}

}  // namespace algenta::sampling
