// One token from one row of engine logits: a pure function of the inputs,
// so the same request and seed give the same token on every run and every
// machine. Pipeline (SAMPLING.md states each step exactly):
//   z = penalized_logits (repetition, frequency, presence)
//   temperature == 0: token = argmax z, ties -> lowest id
//   else: z = z / temperature; candidates = top-k, then top-p, then min-p;
//         token = argmax over candidates of z + gumbel_noise(seed, position, id),
//         ties -> lowest id (Gumbel-max: a draw from softmax(z) restricted to
//         the candidates).
//   logprobs / top_logprobs: log_softmax of the raw logits (logprobs.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sampling/logprobs.hpp"
#include "sampling/sampling_params.hpp"

namespace algenta::sampling {

struct SamplingRequest {
  std::span<const float> logits;  // one per vocabulary entry; -inf = not allowed
  std::span<const std::int32_t> prompt_tokens;
  std::span<const std::int32_t> output_tokens;  // generated so far
  std::uint64_t seed = 0;
  std::uint64_t position = 0;  // index of the token being sampled in the sequence
};

struct SampleResult {
  std::int32_t token = 0;
  std::optional<double> logprob;  // set when params.logprobs
  std::vector<TokenLogprob> top_logprobs;
};

// Throws SamplingError for invalid params, NaN or +inf logits, no allowed
// token, or a history token outside the vocabulary.
SampleResult sample_token(const SamplingParams& params, const SamplingRequest& request);

// What this pipeline compares when it draws, to judge another sampler's
// choice on the same inputs: the winner and its score, and `token`'s score
// (none when the masks drop it or it is not allowed). Scores are the
// penalized logits when greedy, z / temperature + Gumbel noise otherwise.
// Throws as sample_token.
struct DrawScores {
  std::int32_t winner = 0;
  double winner_score = 0.0;
  std::optional<double> token_score;
};
DrawScores draw_scores(const SamplingParams& params, const SamplingRequest& request,
                       std::int32_t token);

}  // namespace algenta::sampling
