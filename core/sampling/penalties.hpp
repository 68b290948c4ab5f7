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

// Throws SamplingError naming the list and index of a token id outside
// [0, vocabulary size).
std::vector<double> penalized_logits(std::span<const float> logits,
                                     std::span<const std::int32_t> prompt_tokens,
                                     std::span<const std::int32_t> output_tokens,
                                     const SamplingParams& params);

}  // namespace algenta::sampling
