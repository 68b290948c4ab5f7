// The sampling gate, for an engine that draws tokens itself (ABI 1.2): its
// draws must be the host sampler's (core/sampling) on the engine's own
// logits, so the sampler is judged apart from the logits (the oracle gate
// judges those). Per sampling configuration, a seeded prompt runs free for
// kSamplingSteps tokens, every chunk carrying its sampling parameters and
// asking for its last logits too; at each step the host scores the engine's
// token on those logits (sampler.hpp, draw_scores). A token other than the
// host's winner passes only as a tie: the host's masks keep it and its score
// is within kSamplingTieTolerance of the winner's. Reported logprobs must be
// log_softmax of the same logits within kSamplingLogprobTolerance.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "sampling/logprobs.hpp"
#include "sampling/sampler.hpp"
#include "verify/seeded_prompt.hpp"
#include "verify/verify_gates.hpp"

namespace algenta::host {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kSamplingIdBase = 3001;
constexpr std::size_t kSamplingPromptLength = 32;

struct SamplingCase {
  std::string name;
  sampling::SamplingParams params;
};

std::vector<SamplingCase> sampling_cases() {
  std::vector<SamplingCase> cases(4);
  cases[0].name = "T=0.8";
  cases[0].params.temperature = 0.8;
  cases[1].name = "T=1 top-k 40 top-p 0.9, top 5 logprobs";
  cases[1].params.temperature = 1.0;
  cases[1].params.top_k = 40;
  cases[1].params.top_p = 0.9;
  cases[1].params.logprobs = true;
  cases[1].params.top_logprobs = 5;
  cases[2].name = "T=0.7 min-p 0.05, penalties";
  cases[2].params.temperature = 0.7;
  cases[2].params.min_p = 0.05;
  cases[2].params.repetition_penalty = 1.2;
  cases[2].params.frequency_penalty = 0.4;
  cases[2].params.presence_penalty = 0.3;
  cases[3].name = "greedy, repetition 1.3, top 3 logprobs";
  cases[3].params.temperature = 0.0;
  cases[3].params.repetition_penalty = 1.3;
  cases[3].params.logprobs = true;
  cases[3].params.top_logprobs = 3;
  return cases;
}

// Why the engine's draw at one step is not the host's, or nothing.
std::optional<std::string> judge_step(const SamplingCase& c, const sampling::SamplingRequest& request,
                                      std::int32_t token, const DrawnLogprobs& drawn,
                                      std::size_t& ties) {
  const sampling::DrawScores scores = sampling::draw_scores(c.params, request, token);
  if (token != scores.winner) {
    if (!scores.token_score) {
      return "token " + std::to_string(token) + " is one the host's masks drop (the host draws " +
             std::to_string(scores.winner) + ")";
    }
    const double gap = scores.winner_score - *scores.token_score;
    if (gap > kSamplingTieTolerance) {
      return "token " + std::to_string(token) + " scores " + short_number(gap) +
             " below the host's " + std::to_string(scores.winner) + " (ties within " +
             short_number(kSamplingTieTolerance) + ")";
    }
    ++ties;
  }
  if (!c.params.logprobs) return std::nullopt;
  if (!drawn.logprob) return std::string("no logprob reported for the drawn token");
  const sampling::LogSoftmax log_softmax(request.logits);
  const double want = log_softmax.logprob(token);
  if (!(std::fabs(*drawn.logprob - want) <= kSamplingLogprobTolerance)) {
    return "the drawn token's logprob " + short_number(*drawn.logprob) + " is not the host's " +
           short_number(want);
  }
  const std::vector<sampling::TokenLogprob> top = log_softmax.top(c.params.top_logprobs);
  if (drawn.top.size() != top.size()) {
    return std::to_string(drawn.top.size()) + " top logprobs reported, the host has " +
           std::to_string(top.size());
  }
  for (std::size_t k = 0; k < top.size(); ++k) {
    const double own = log_softmax.logprob(drawn.top[k].token);
    if (!(std::fabs(drawn.top[k].logprob - own) <= kSamplingLogprobTolerance) ||
        !(std::fabs(own - top[k].logprob) <= kSamplingLogprobTolerance)) {
      return "top logprob " + std::to_string(k + 1) + " is token " +
             std::to_string(drawn.top[k].token) + " at " + short_number(drawn.top[k].logprob) +
             "; the host has token " + std::to_string(top[k].token) + " at " +
             short_number(top[k].logprob);
    }
  }
  return std::nullopt;
}

CheckResult run_case(EngineSession& plugin, const SamplingCase& c, std::size_t index,
                     std::size_t prompt_length) {
  const auto start = Clock::now();
  const std::size_t vocab = plugin.vocab_size();
  const std::uint64_t seed = kSamplingSeedBase + index;
  const std::vector<std::int32_t> prompt = seeded_prompt(seed, prompt_length, vocab);
  const std::uint64_t id = kSamplingIdBase + index;
  std::vector<std::int32_t> output;
  std::size_t ties = 0;
  std::optional<std::string> failure;
  std::size_t failed_step = 0;
  ChunkRequest chunk{id, prompt, 0, ALGENTA_LOGITS_LAST};
  try {
    for (std::size_t step = 0; step < kSamplingSteps; ++step) {
      chunk.sampling = ChunkSampling{c.params, seed, prompt, output, {}};
      const StepResult result = plugin.step({chunk});
      const std::int32_t token = result.next_tokens.at(0);
      const sampling::SamplingRequest request{result.logits, prompt, output, seed,
                                              prompt.size() + output.size()};
      if (!failure) {
        try {
          failure = judge_step(c, request, token, result.drawn.at(0), ties);
        } catch (const sampling::SamplingError& e) {
          failure = std::string("the host cannot draw from the engine's logits: ") + e.what();
        }
        failed_step = step;
      }
      output.push_back(token);
      chunk.tokens = {token};
      chunk.start_position = static_cast<std::uint32_t>(prompt.size() + step);
    }
  } catch (...) {
    try {
      plugin.free_sequences({id});
    } catch (...) {
    }
    throw;
  }
  plugin.free_sequences({id});

  CheckResult check;
  check.check = c.name;
  check.verdict = failure ? Verdict::fail : Verdict::pass;
  check.details = failure ? "step " + std::to_string(failed_step) + ": " + *failure
                          : std::to_string(kSamplingSteps) + "/" + std::to_string(kSamplingSteps) +
                                " drawn as the host draws from the engine's logits (" +
                                std::to_string(ties) + " ties)";
  check.data = {{"prompt_length", prompt_length},
                {"seed", seed},
                {"steps", kSamplingSteps},
                {"ties", ties},
                {"tokens", output}};
  if (failure) check.data["failed_step"] = failed_step;
  check.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return check;
}

}  // namespace

GateResult run_sampling_gate(EngineSession& plugin, std::size_t context) {
  const auto start = Clock::now();
  GateResult gate;
  gate.gate = kSamplingGate;
  const std::size_t room = context > kSamplingSteps ? context - kSamplingSteps + 1 : 1;
  const std::size_t prompt_length = std::min(kSamplingPromptLength, room);
  const std::vector<SamplingCase> cases = sampling_cases();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    gate.checks.push_back(run_case(plugin, cases[i], i, prompt_length));
  }
  gate.data = {{"tie_tolerance", kSamplingTieTolerance},
               {"logprob_tolerance", kSamplingLogprobTolerance}};
  gate.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return gate;
}

}  // namespace algenta::host
