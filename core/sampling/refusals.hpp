// What a sampler says when it refuses a row: the host sampler and the CUDA
// engine's device sampler refuse the same rows, in the same words.
#pragma once

#include <cstddef>
#include <string>

namespace algenta::sampling {

// logits[index] is NaN (nan) or +inf.
inline std::string bad_logit_text(std::size_t index, bool nan) {
  return "logits[" + std::to_string(index) + "] is " + (nan ? "NaN" : "+inf") +
         ": engine logits must be finite or -inf (not allowed)";
}

inline std::string no_allowed_token_text(std::size_t vocab) {
  return "all " + std::to_string(vocab) + " logits are -inf: no token is allowed";
}

// step: "the penalties" or "dividing by temperature".
inline std::string leaves_double_range_text(std::size_t token, const char* step) {
  return "the logit of token " + std::to_string(token) + " leaves the double range after " + step;
}

}  // namespace algenta::sampling
