#include "sampling/sampling_params.hpp"

#include <sstream>

namespace algenta::sampling {
namespace {

std::string describe(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

// Written as !(in range) so NaN fails too.
void require(bool in_range, const char* field, const char* range, const std::string& value) {
  if (!in_range)
    throw SamplingError(std::string(field) + " must be in " + range + ", got " + value);
}

}  // namespace

void validate(const SamplingParams& p) {
  require(p.temperature >= 0.0 && p.temperature <= kMaxTemperature, "temperature",
          "[0, 100] (0 = greedy)", describe(p.temperature));
  require(p.top_p > 0.0 && p.top_p <= 1.0, "top_p", "(0, 1]", describe(p.top_p));
  require(p.top_k >= -1, "top_k", "{-1, 0} (off) or >= 1", std::to_string(p.top_k));
  require(p.min_p >= 0.0 && p.min_p <= 1.0, "min_p", "[0, 1]", describe(p.min_p));
  require(p.presence_penalty >= -2.0 && p.presence_penalty <= 2.0, "presence_penalty",
          "[-2, 2]", describe(p.presence_penalty));
  require(p.frequency_penalty >= -2.0 && p.frequency_penalty <= 2.0, "frequency_penalty",
          "[-2, 2]", describe(p.frequency_penalty));
  require(p.repetition_penalty > 0.0 && p.repetition_penalty <= 2.0, "repetition_penalty",
          "(0, 2]", describe(p.repetition_penalty));
  require(p.top_logprobs >= 0 && p.top_logprobs <= kMaxTopLogprobs, "top_logprobs", "[0, 20]",
          std::to_string(p.top_logprobs));
  if (p.top_logprobs > 0 && !p.logprobs)
    throw SamplingError("top_logprobs = " + std::to_string(p.top_logprobs) +
                        " needs logprobs = true (as in the OpenAI API)");
}

}  // namespace algenta::sampling
