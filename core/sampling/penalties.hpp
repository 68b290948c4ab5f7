// Penalties on the engine's logits, in vLLM's order and with OpenAI's
// definitions, computed in double:
//   1. repetition (HF/vLLM): for each distinct token in prompt + output,
//      z = z > 0 ? z / repetition_penalty : z * repetition_penalty
//   2. frequency (OpenAI): z -= frequency_penalty * count, count = times the
//      token occurs in the OUTPUT so far
//   3. presence (OpenAI): z -= presence_penalty * (count > 0 ? 1 : 0)
// Tokens never seen keep z = double(logit); -inf stays -inf.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sampling/sampling_params.hpp"

namespace algenta::sampling {

// A token the penalties change: each distinct token of the history once
// (prompt and output when the repetition penalty is on, the output alone
// otherwise), with the times it occurs in the output, in increasing token
// order. The host sampler walks it, and the CUDA engine's sampler gets it as
// its rows' history (the device applies the same arithmetic per token).
struct PenaltyToken {
  std::int32_t token;
  std::int32_t output_count;
};
std::vector<PenaltyToken> penalty_history(std::span<const std::int32_t> prompt_tokens,
                                          std::span<const std::int32_t> output_tokens,
                                          bool repetition, bool counts);

// Throws SamplingError naming the list and index of a token id outside
// [0, vocabulary size).
std::vector<double> penalized_logits(std::span<const float> logits,
                                     std::span<const std::int32_t> prompt_tokens,
                                     std::span<const std::int32_t> output_tokens,
                                     const SamplingParams& params);

}  // namespace algenta::sampling
