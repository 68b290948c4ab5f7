// The transformers gate: the plugin's greedy tokens against Hugging Face
// transformers' on the same ids (a reference file made on a GPU machine).
#include <chrono>
#include <cmath>
#include <string>

#include "verify/greedy_decode.hpp"
#include "verify/token_comparison.hpp"
#include "verify/verify_gates.hpp"

namespace algenta::host {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kIdBase = 3001;

// Mantissa bits of the reference's logits; 0 when they are not rounded
// below fp32 (then every divergence counts).
int reference_mantissa_bits(const std::string& dtype) {
  if (dtype == "bfloat16" || dtype == "bf16") return 8;
  if (dtype == "float16" || dtype == "f16") return 11;
  return 0;
}

// A reference whose own logits round to a coarse dtype cannot rank two
// tokens closer than a couple of its rounding steps: transformers in bf16
// even disagrees with itself (cached vs recomputed) at such steps. A
// divergence where the reference's top-2 margin is within two rounding
// steps of its top logit is such a tie; tokens after it follow different
// contexts and are not compared.
double tie_tolerance(const std::string& dtype, double top_logit) {
  const int bits = reference_mantissa_bits(dtype);
  if (bits == 0 || top_logit == 0.0) return 0.0;
  const double step = std::ldexp(1.0, std::ilogb(top_logit) - (bits - 1));
  return 2.0 * step;
}

CheckResult compare_prompt(EngineSession& plugin, const ReferencePrompt& prompt,
                           const std::string& dtype, std::uint64_t sequence_id) {
  const auto start = Clock::now();
  const GreedyRun got = greedy_decode(plugin, sequence_id, prompt.ids, prompt.greedy.size(), false);
  const TokenComparison comparison = compare_tokens(got.tokens, prompt.greedy);

  CheckResult check;
  check.check = prompt.name;
  check.verdict = comparison.all_identical() ? Verdict::pass : Verdict::fail;
  check.details = describe_counts(comparison);
  check.data = {
      {"prompt_length", prompt.ids.size()}, {"tokens", prompt.greedy.size()},
      {"first_window", comparison.window},  {"first_identical", comparison.window_identical},
      {"identical", comparison.identical},  {"plugin_tokens", got.tokens},
      {"reference_tokens", prompt.greedy}};
  if (comparison.first_divergence) {
    const std::size_t step = *comparison.first_divergence;
    const double margin = prompt.margins[step];
    check.details += "; first divergence at step " + std::to_string(step) + " (position " +
                     std::to_string(prompt.ids.size() + step) + "): plugin " +
                     std::to_string(got.tokens[step]) + ", transformers " +
                     std::to_string(prompt.greedy[step]) + ", reference margin " +
                     short_number(margin);
    check.data["divergence"] = {{"step", step},
                                {"position", prompt.ids.size() + step},
                                {"plugin_token", got.tokens[step]},
                                {"reference_token", prompt.greedy[step]},
                                {"reference_margin", margin}};
    if (!prompt.top_logits.empty()) {
      const double tolerance = tie_tolerance(dtype, prompt.top_logits[step]);
      check.data["divergence"]["reference_tie_tolerance"] = tolerance;
      if (margin <= tolerance) {
        check.verdict = Verdict::pass;
        check.details += " <= " + short_number(tolerance) + " (two " + dtype +
                         " rounding steps at its top logit " +
                         short_number(prompt.top_logits[step]) +
                         "): a tie in the reference; not compared after it";
      }
    }
  }
  check.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return check;
}

}  // namespace

GateResult run_transformers_gate(EngineSession& plugin, const TransformersReference& reference) {
  const auto start = Clock::now();
  GateResult gate;
  gate.gate = "transformers";
  gate.data = {{"reference",
                {{"checkpoint", reference.checkpoint},
                 {"dtype", reference.dtype},
                 {"device", reference.device},
                 {"torch", reference.torch},
                 {"transformers", reference.transformers},
                 {"max_new_tokens", reference.max_new_tokens}}}};
  for (std::size_t i = 0; i < reference.prompts.size(); ++i) {
    gate.checks.push_back(
        compare_prompt(plugin, reference.prompts[i], reference.dtype, kIdBase + i));
    report_progress(gate.gate, gate.checks.back());
  }
  gate.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return gate;
}

}  // namespace algenta::host
