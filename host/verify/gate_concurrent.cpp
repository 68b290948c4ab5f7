// The concurrent gate: a sequence must come out the same whether it shares
// its steps with seven others or runs alone. Batch-invariant kernels (no
// batch-size-dependent split, fixed reduction order, no float atomics) give
// bit-identical logits; anything else shows up here as a memcmp difference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "verify/greedy_decode.hpp"
#include "verify/seeded_prompt.hpp"
#include "verify/verify_gates.hpp"

namespace algenta::host {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kBatchedIdBase = 1001;
constexpr std::uint64_t kAloneIdBase = 2001;  // fresh ids: nothing carries over

struct SequenceRun {
  std::vector<std::int32_t> tokens;  // one per step
  std::vector<float> logits;         // one row of vocab floats per step
};

std::vector<SequenceRun> run_batched(EngineSession& plugin,
                                     const std::vector<std::vector<std::int32_t>>& prompts) {
  const std::size_t vocab = plugin.vocab_size();
  std::vector<SequenceRun> runs(prompts.size());
  std::vector<std::uint64_t> ids;
  std::vector<ChunkRequest> chunks;
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    ids.push_back(kBatchedIdBase + i);
    chunks.push_back({ids.back(), prompts[i], 0, ALGENTA_LOGITS_LAST});
  }
  try {
    for (std::size_t step = 0; step < kConcurrentSteps; ++step) {
      const StepResult result = plugin.step(chunks);
      for (std::size_t i = 0; i < prompts.size(); ++i) {
        runs[i].tokens.push_back(result.next_tokens[i]);
        runs[i].logits.insert(runs[i].logits.end(), result.logits.begin() + i * vocab,
                              result.logits.begin() + (i + 1) * vocab);
        chunks[i].start_position = static_cast<std::uint32_t>(prompts[i].size() + step);
        chunks[i].tokens = {result.next_tokens[i]};
      }
    }
  } catch (...) {
    try {
      plugin.free_sequences(ids);
    } catch (...) {
    }
    throw;
  }
  plugin.free_sequences(ids);
  return runs;
}

struct Difference {
  std::size_t step = 0;
  std::string what;
  nlohmann::json data;
};

// The first step where the batched and the alone runs differ, if any.
std::optional<Difference> first_difference(const SequenceRun& batched, const SequenceRun& alone,
                                           std::size_t vocab) {
  for (std::size_t step = 0; step < batched.tokens.size(); ++step) {
    if (batched.tokens[step] != alone.tokens[step]) {
      return Difference{step,
                        "token " + std::to_string(batched.tokens[step]) + " batched vs " +
                            std::to_string(alone.tokens[step]) + " alone",
                        {{"step", step},
                         {"batched_token", batched.tokens[step]},
                         {"alone_token", alone.tokens[step]}}};
    }
    const float* a = batched.logits.data() + step * vocab;
    const float* b = alone.logits.data() + step * vocab;
    if (std::memcmp(a, b, vocab * sizeof(float)) != 0) {
      double largest = 0.0;
      std::size_t differing = 0;
      for (std::size_t v = 0; v < vocab; ++v) {
        if (std::memcmp(a + v, b + v, sizeof(float)) == 0) continue;
        ++differing;
        const double diff = std::fabs(static_cast<double>(a[v]) - b[v]);
        largest = std::isnan(diff) ? diff : std::max(largest, diff);
      }
      return Difference{step,
                        "logits differ with the same token " + std::to_string(alone.tokens[step]) +
                            " (" + std::to_string(differing) + " of " + std::to_string(vocab) +
                            " floats, max |diff| " + short_number(largest) + ")",
                        {{"step", step},
                         {"token", alone.tokens[step]},
                         {"differing_floats", differing},
                         {"max_abs_diff", largest}}};
    }
  }
  return std::nullopt;
}

}  // namespace

GateResult run_concurrent_gate(EngineSession& plugin, std::size_t context) {
  const auto start = Clock::now();
  const std::size_t vocab = plugin.vocab_size();
  // Shorter prompts when the context is small, so every step fits.
  const std::size_t longest = context > kConcurrentSteps ? context - kConcurrentSteps + 1 : 1;
  std::vector<std::vector<std::int32_t>> prompts;
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < kConcurrentSequences; ++i) {
    lengths.push_back(std::min(kConcurrentLengths[i], longest));
    prompts.push_back(seeded_prompt(kConcurrentSeedBase + i, lengths.back(), plugin.vocab_size()));
  }

  const std::vector<SequenceRun> batched = run_batched(plugin, prompts);
  std::size_t identical = 0;
  std::optional<std::string> first;  // the first difference, by sequence then step
  nlohmann::json sequences = nlohmann::json::array();
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    const GreedyRun alone =
        greedy_decode(plugin, kAloneIdBase + i, prompts[i], kConcurrentSteps, true);
    const std::optional<Difference> difference =
        first_difference(batched[i], {alone.tokens, alone.logits}, vocab);
    nlohmann::json item = {{"sequence", i + 1},
                           {"prompt_length", lengths[i]},
                           {"seed", kConcurrentSeedBase + i},
                           {"identical", !difference.has_value()}};
    if (difference) {
      item["difference"] = difference->data;
      if (!first) {
        first = "sequence " + std::to_string(i + 1) + " (" + std::to_string(lengths[i]) +
                "-token prompt) differs first at step " + std::to_string(difference->step) + ": " +
                difference->what;
      }
    } else {
      ++identical;
    }
    sequences.push_back(std::move(item));
  }

  CheckResult check;
  check.check = std::to_string(kConcurrentSequences) + " sequences";
  check.verdict = identical == kConcurrentSequences ? Verdict::pass : Verdict::fail;
  check.details = std::to_string(identical) + "/" + std::to_string(kConcurrentSequences) +
                  " sequences bit-identical batched and alone (" +
                  std::to_string(kConcurrentSteps) + " steps, tokens and logits)";
  if (first) check.details += "; " + *first;
  check.data = {{"steps", kConcurrentSteps}, {"identical", identical}, {"sequences", sequences}};
  check.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  return single_check_gate("concurrent", std::move(check));
}

}  // namespace algenta::host
