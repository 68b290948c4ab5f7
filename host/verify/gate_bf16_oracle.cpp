// The bf16 policy's oracle gate, "bf16-oracle". bf16 GEMM and attention
// inputs cannot match the fp32 oracle bit for bit, so the exact policy's
// token and logit bounds would fail every honest bf16 engine; this gate
// asks instead what rounding cannot excuse:
//  (a) teacher-forced on the oracle's tokens, the plugin's top-1 is the
//      oracle's wherever the oracle's top-1 minus top-2 margin exceeds tau,
//      and at kTopOneShare of all positions;
//  (b) free-running greedy, the first 16 tokens are the oracle's on
//      kFreeRunningShare of the prompts;
//  (c) |logit difference| per position is reported, not bounded.
#include <chrono>

#include "verify/difference_percentiles.hpp"
#include "verify/greedy_decode.hpp"
#include "verify/seeded_prompt.hpp"
#include "verify/teacher_forced.hpp"
#include "verify/token_comparison.hpp"
#include "verify/verify_gates.hpp"

namespace algenta::host {
namespace {

using Clock = std::chrono::steady_clock;

// tau, in logits: above this oracle margin a bf16 engine must choose the
// oracle's token. It is to be fixed once from the first bf16 CUDA build's
// measured p99.9 |logit difference| against the oracle, and never loosened.
// PROVISIONAL: no bf16 CUDA build exists yet, so this value was NOT
// measured on a GPU. It is the largest p99.9 that the policy's CPU stand-in
// (cpu_oracle_bf16_policy, tests/CMakeLists.txt) measured on the committed
// oracle fixtures (tests/fixtures/oracle, lengths 256, 550, 1024, 4096, 64
// tokens): 0.095 to 0.104 on llama, llama_sharded, qwen2 and qwen3, 0.294
// on qwen3_tied; rounded up.
constexpr float kBf16MarginTau = 0.3f;
constexpr bool kBf16MarginTauProvisional = true;

constexpr double kTopOneShare = 0.99;
constexpr double kFreeRunningShare = 0.90;

// Disagreements listed per prompt in --json; all are counted.
constexpr std::size_t kListedDisagreements = 32;

struct PromptRun {
  std::size_t length = 0;
  std::uint64_t seed = 0;
  TeacherForcedRun forced;
  TokenComparison free_running;  // the plugin's own greedy tokens vs the oracle's
  std::vector<std::int32_t> plugin_tokens;
  double seconds = 0;
};

PromptRun run_prompt(EngineSession& plugin, EngineSession& oracle, std::size_t length,
                     std::size_t tokens, std::uint64_t sequence_id) {
  const auto start = Clock::now();
  PromptRun run;
  run.length = length;
  run.seed = kOracleSeedBase + length;  // the exact policy's oracle gate's prompt
  const std::vector<std::int32_t> prompt = seeded_prompt(run.seed, length, plugin.vocab_size());
  run.forced = teacher_forced(plugin, oracle, sequence_id, prompt, tokens);
  run.plugin_tokens = greedy_decode(plugin, sequence_id, prompt, tokens, false).tokens;
  run.free_running = compare_tokens(run.plugin_tokens, run.forced.oracle_tokens);
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

bool above_tau(const PositionComparison& p) { return p.oracle_margin > kBf16MarginTau; }

Percentiles spread(const std::vector<PositionComparison>& positions,
                   float PositionComparison::*measure) {
  std::vector<float> values;
  values.reserve(positions.size());
  for (const PositionComparison& p : positions) values.push_back(p.*measure);
  return percentiles(std::move(values));
}

std::string percent(double share) { return short_number(100.0 * share) + "%"; }

CheckResult prompt_check(const PromptRun& run) {
  const std::vector<PositionComparison>& positions = run.forced.positions;
  std::size_t agree = 0;
  std::size_t wrong_above_tau = 0;
  const PositionComparison* first_wrong_above_tau = nullptr;
  nlohmann::json listed = nlohmann::json::array();
  for (const PositionComparison& p : positions) {
    if (p.agrees()) {
      ++agree;
      continue;
    }
    if (above_tau(p)) {
      ++wrong_above_tau;
      if (first_wrong_above_tau == nullptr) first_wrong_above_tau = &p;
    }
    if (listed.size() < kListedDisagreements) {
      listed.push_back({{"position", p.position},
                        {"plugin_token", p.plugin_top},
                        {"oracle_token", p.oracle_top},
                        {"oracle_margin", p.oracle_margin}});
    }
  }
  const Percentiles abs = spread(positions, &PositionComparison::diff_abs);
  const Percentiles relative = spread(positions, &PositionComparison::diff_relative);

  CheckResult check;
  check.check = "L=" + std::to_string(run.length);
  check.verdict = wrong_above_tau == 0 ? Verdict::pass : Verdict::fail;
  check.details = "teacher-forced: " + std::to_string(agree) + "/" +
                  std::to_string(positions.size()) + " positions top-1 agree, " +
                  std::to_string(wrong_above_tau) + " disagree where the oracle's margin > tau " +
                  short_number(kBf16MarginTau);
  if (first_wrong_above_tau != nullptr) {
    const PositionComparison& p = *first_wrong_above_tau;
    check.details += " (first at position " + std::to_string(p.position) + ": plugin " +
                     std::to_string(p.plugin_top) + ", oracle " + std::to_string(p.oracle_top) +
                     ", oracle margin " + short_number(p.oracle_margin) + ")";
  }
  check.details += "; |logit diff| " + describe(abs) + "; relative " + describe(relative) +
                   "; free-running " + describe_counts(run.free_running);
  check.data = {{"length", run.length},
                {"seed", run.seed},
                {"tokens", run.forced.oracle_tokens.size()},
                {"positions", positions.size()},
                {"top1_agree", agree},
                {"disagree_above_tau", wrong_above_tau},
                {"disagreements", listed},
                {"logit_diff_abs", to_json(abs)},
                {"logit_diff_relative", to_json(relative)},
                {"first_window", run.free_running.window},
                {"first_identical", run.free_running.window_identical},
                {"identical", run.free_running.identical},
                {"plugin_tokens", run.plugin_tokens},
                {"oracle_tokens", run.forced.oracle_tokens}};
  check.seconds = run.seconds;
  return check;
}

CheckResult top_one_check(const std::vector<PromptRun>& runs) {
  std::size_t agree = 0;
  std::size_t total = 0;
  for (const PromptRun& run : runs) {
    for (const PositionComparison& p : run.forced.positions) agree += p.agrees() ? 1 : 0;
    total += run.forced.positions.size();
  }
  const double share = total == 0 ? 0.0 : static_cast<double>(agree) / static_cast<double>(total);
  CheckResult check;
  check.check = "top-1";
  check.verdict = total > 0 && share >= kTopOneShare ? Verdict::pass : Verdict::fail;
  check.details = std::to_string(agree) + "/" + std::to_string(total) +
                  " teacher-forced positions top-1 agree (" + percent(share) + "; at least " +
                  percent(kTopOneShare) + " needed)";
  check.data = {{"agree", agree}, {"positions", total}, {"share", share},
                {"required", kTopOneShare}};
  return check;
}

CheckResult free_running_check(const std::vector<PromptRun>& runs) {
  std::size_t identical = 0;
  for (const PromptRun& run : runs) {
    identical += run.free_running.window_identical == run.free_running.window ? 1 : 0;
  }
  const double share =
      runs.empty() ? 0.0 : static_cast<double>(identical) / static_cast<double>(runs.size());
  const std::size_t window = runs.empty() ? kFirstWindow : runs.front().free_running.window;
  CheckResult check;
  check.check = "free-running";
  check.verdict = !runs.empty() && share >= kFreeRunningShare ? Verdict::pass : Verdict::fail;
  check.details = std::to_string(identical) + "/" + std::to_string(runs.size()) +
                  " prompts give the oracle's first " + std::to_string(window) +
                  " greedy tokens (" + percent(share) + "; at least " +
                  percent(kFreeRunningShare) + " needed)";
  check.data = {{"prompts_identical", identical}, {"prompts", runs.size()},
                {"share", share}, {"required", kFreeRunningShare}};
  return check;
}

}  // namespace

GateResult run_bf16_oracle_gate(EngineSession& plugin, EngineSession& oracle,
                                const std::vector<std::size_t>& lengths, std::size_t tokens) {
  const auto start = Clock::now();
  GateResult gate;
  gate.gate = kBf16OracleGate;
  std::vector<PromptRun> runs;
  std::vector<PositionComparison> every_position;
  std::uint64_t sequence_id = 1;
  for (const std::size_t length : lengths) {
    runs.push_back(run_prompt(plugin, oracle, length, tokens, sequence_id++));
    const std::vector<PositionComparison>& positions = runs.back().forced.positions;
    every_position.insert(every_position.end(), positions.begin(), positions.end());
    gate.checks.push_back(prompt_check(runs.back()));
    report_progress(gate.gate, gate.checks.back());
  }
  gate.checks.push_back(top_one_check(runs));
  gate.checks.push_back(free_running_check(runs));
  gate.data = {{"tokens", tokens},
               {"lengths", lengths},
               {"tau", kBf16MarginTau},
               {"tau_provisional", kBf16MarginTauProvisional},
               {"logit_diff_abs", to_json(spread(every_position, &PositionComparison::diff_abs))},
               {"logit_diff_relative",
                to_json(spread(every_position, &PositionComparison::diff_relative))}};
  gate.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return gate;
}

}  // namespace algenta::host
