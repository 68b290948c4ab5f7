// Per-request sampling parameters (OpenAI / vLLM names) and their checks.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace algenta::sampling {

// A request the sampler refuses; the message names the field, the allowed
// range and the value given.
class SamplingError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

inline constexpr double kMaxTemperature = 100.0;
inline constexpr int kMaxTopLogprobs = 20;

struct SamplingParams {
  double temperature = 1.0;         // [0, 100]; 0 = greedy (OpenAI caps at 2; we do not)
  double top_p = 1.0;               // (0, 1]; 1 = off
  std::int64_t top_k = -1;          // -1 or 0 = off, else >= 1
  double min_p = 0.0;               // [0, 1]; 0 = off
  double presence_penalty = 0.0;    // [-2, 2]
  double frequency_penalty = 0.0;   // [-2, 2]
  double repetition_penalty = 1.0;  // (0, 2]; 1 = off
  bool logprobs = false;            // report the sampled token's logprob
  int top_logprobs = 0;             // [0, 20]; needs logprobs
};

// Throws SamplingError for the first field out of range (NaN is out of
// every range).
void validate(const SamplingParams& params);

}  // namespace algenta::sampling
