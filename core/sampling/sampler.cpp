#include "sampling/sampler.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "sampling/candidate_masks.hpp"
#include "sampling/gumbel_noise.hpp"
#include "sampling/penalties.hpp"
#include "sampling/refusals.hpp"

namespace algenta::sampling {
namespace {

void check_logits(std::span<const float> logits) {
  if (logits.empty()) throw SamplingError("logits is empty: the vocabulary needs >= 1 entry");
  if (logits.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw SamplingError("logits has " + std::to_string(logits.size()) +
                        " entries, more than token ids (int32) can name");
  bool any_allowed = false;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    const float l = logits[i];
    if (std::isnan(l) || l == INFINITY) throw SamplingError(bad_logit_text(i, std::isnan(l)));
    any_allowed = any_allowed || l != -INFINITY;
  }
  if (!any_allowed) throw SamplingError(no_allowed_token_text(logits.size()));
}

// Lowest id wins ties, whatever order the ids come in.
struct BestToken {
  std::int32_t id = -1;
  double score = -INFINITY;
  void offer(std::int32_t candidate, double candidate_score) {
    if (id < 0 || candidate_score > score || (candidate_score == score && candidate < id)) {
      id = candidate;
      score = candidate_score;
    }
  }
};

std::int32_t greedy(const std::vector<double>& z) {
  BestToken best;
  for (std::size_t i = 0; i < z.size(); ++i)
    if (z[i] != -INFINITY) best.offer(static_cast<std::int32_t>(i), z[i]);
  return best.id;
}

// A tiny repetition_penalty or temperature can push a huge logit past the
// double range; refuse rather than compare infinities.
void check_finite_after(std::span<const float> logits, const std::vector<double>& z,
                        const char* step) {
  for (std::size_t i = 0; i < z.size(); ++i)
    if (logits[i] != -INFINITY && !std::isfinite(z[i]))
      throw SamplingError(leaves_double_range_text(i, step));
}

std::int32_t gumbel_max(std::vector<double>& z, const SamplingParams& params,
                        const SamplingRequest& request) {
  for (double& v : z) v = v / params.temperature;
  check_finite_after(request.logits, z, "dividing by temperature");
  const std::vector<std::int32_t> candidates = surviving_candidates(z, params);
  const auto z_of = [&](std::int32_t id) { return z[static_cast<std::size_t>(id)]; };
  GumbelNoiseRow noise(request.seed, request.position);
  BestToken best;
  // Start from the most likely candidate so the bound skips hopeless tokens
  // from the first one on; skipping never changes the winner.
  std::int32_t most_likely = candidates.front();
  for (std::int32_t id : candidates)
    if (z_of(id) > z_of(most_likely) || (z_of(id) == z_of(most_likely) && id < most_likely))
      most_likely = id;
  best.offer(most_likely,
             z_of(most_likely) + noise.at(static_cast<std::uint32_t>(most_likely)));
  for (std::int32_t id : candidates) {
    if (z_of(id) + kGumbelNoiseBound < best.score) continue;
    best.offer(id, z_of(id) + noise.at(static_cast<std::uint32_t>(id)));
  }
  return best.id;
}

// Steps 1-3 of every draw, after the checks: the penalized logits in double.
std::vector<double> checked_penalized_logits(const SamplingParams& params,
                                             const SamplingRequest& request) {
  validate(params);
  check_logits(request.logits);
  std::vector<double> z = penalized_logits(request.logits, request.prompt_tokens,
                                           request.output_tokens, params);
  check_finite_after(request.logits, z, "the penalties");
  return z;
}

}  // namespace

DrawScores draw_scores(const SamplingParams& params, const SamplingRequest& request,
                       std::int32_t token) {
  std::vector<double> z = checked_penalized_logits(params, request);
  const bool in_vocab = token >= 0 && static_cast<std::size_t>(token) < z.size();
  DrawScores scores;
  if (params.temperature == 0.0) {
    scores.winner = greedy(z);
    scores.winner_score = z[static_cast<std::size_t>(scores.winner)];
    if (in_vocab && z[static_cast<std::size_t>(token)] != -INFINITY)
      scores.token_score = z[static_cast<std::size_t>(token)];
    return scores;
  }
  // The same steps as gumbel_max, every candidate scored (no bound skipping).
  for (double& v : z) v = v / params.temperature;
  check_finite_after(request.logits, z, "dividing by temperature");
  GumbelNoiseRow noise(request.seed, request.position);
  BestToken best;
  for (std::int32_t id : surviving_candidates(z, params)) {
    const double score = z[static_cast<std::size_t>(id)] + noise.at(static_cast<std::uint32_t>(id));
    best.offer(id, score);
    if (id == token) scores.token_score = score;
  }
  scores.winner = best.id;
  scores.winner_score = best.score;
  return scores;
}

SampleResult sample_token(const SamplingParams& params, const SamplingRequest& request) {
  std::vector<double> z = checked_penalized_logits(params, request);
  SampleResult result;
  result.token = params.temperature == 0.0 ? greedy(z) : gumbel_max(z, params, request);
  if (params.logprobs) {
    const LogSoftmax log_softmax(request.logits);
    result.logprob = log_softmax.logprob(result.token);
    result.top_logprobs = log_softmax.top(params.top_logprobs);
  }
  return result;
}

}  // namespace algenta::sampling
