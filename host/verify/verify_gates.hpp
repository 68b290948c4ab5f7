// The correctness gates of `algenta-host verify` (DESIGN.md, "Correctness
// gates"). Each returns one GateResult; engine failures propagate as
// EngineError, since a gate cannot judge an engine that stopped answering.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "engine/engine_session.hpp"
#include "engine/host_paths.hpp"
#include "verify/transformers_reference.hpp"
#include "verify/verify_result.hpp"

namespace algenta::host {

// Greedy continuation on the plugin vs the cpu_oracle, per prompt length:
// seeded prompts (seeded_prompt.hpp), prefill in one chunk, then one token
// per step; the oracle's top-1 minus top-2 margin at the first divergence.
GateResult run_oracle_gate(EngineSession& plugin, EngineSession& oracle,
                           const std::vector<std::size_t>& lengths, std::size_t tokens);

// The bf16 policy's gate in place of the oracle gate (gate_bf16_oracle.cpp):
// per prompt length, the oracle gate's seeded prompt teacher-forced on the
// oracle's tokens (top-1 agreement where the oracle's margin exceeds tau,
// and over all positions) and run free (the first 16 greedy tokens), with
// the |logit difference| of every position reported.
inline constexpr const char* kBf16OracleGate = "bf16-oracle";
GateResult run_bf16_oracle_gate(EngineSession& plugin, EngineSession& oracle,
                                const std::vector<std::size_t>& lengths, std::size_t tokens);

// Bit-identical logits and tokens across fresh processes: this executable
// run kRepeatRuns times as `generate --logits`.
inline constexpr std::size_t kRepeatRuns = 6;
inline constexpr std::size_t kRepeatTokens = 16;
inline constexpr std::size_t kRepeatPromptLength = 256;  // shorter when the context is

struct RepeatSetup {
  HostPaths paths;  // forwarded to each process
  std::string model_dir;
  std::string plugin_name;  // the plugin, named explicitly
  PrecisionOptions precision;  // forwarded to each process
  std::uint32_t vocab = 0;
  std::size_t context = 0;  // tokens per sequence the model allows
};
GateResult run_repeat_gate(const RepeatSetup& setup);

// kConcurrentSequences sequences of different lengths stepped together
// (one step prefills all, then each step decodes one token of each) against
// each alone: tokens and logits must be bit-identical.
inline constexpr std::size_t kConcurrentSequences = 8;
inline constexpr std::size_t kConcurrentSteps = 16;  // the prefill step + 15 decode steps
inline constexpr std::array<std::size_t, kConcurrentSequences> kConcurrentLengths = {
    17, 300, 64, 129, 33, 255, 96, 200};
GateResult run_concurrent_gate(EngineSession& plugin, std::size_t context);

// For an engine that draws tokens itself (ABI 1.2 engine sampling): four
// sampling configurations, each a seeded prompt run free for kSamplingSteps
// tokens; every draw must be the host sampler's on the engine's own logits
// (a different token only as a tie within kSamplingTieTolerance of the
// host's winning score, among the tokens the host's masks keep), and every
// reported logprob log_softmax of those logits within
// kSamplingLogprobTolerance. Engines that leave drawing to the host have
// nothing for it to judge: verify runs it only for those that draw.
inline constexpr const char* kSamplingGate = "sampling";
inline constexpr std::size_t kSamplingSteps = 16;
// In score units (logit / temperature): far above double rounding, far below
// any real preference; an fp32 sampler on the device stays within it.
inline constexpr double kSamplingTieTolerance = 1e-4;
inline constexpr double kSamplingLogprobTolerance = 1e-4;
GateResult run_sampling_gate(EngineSession& plugin, std::size_t context);

// Greedy token identity against a transformers reference file.
GateResult run_transformers_gate(EngineSession& plugin, const TransformersReference& reference);

// The context one greedy run needs: the prompt plus every generated token
// but the last, which is never fed back.
inline std::size_t context_needed(std::size_t prompt_tokens, std::size_t generated) {
  return prompt_tokens + generated - 1;
}

}  // namespace algenta::host
