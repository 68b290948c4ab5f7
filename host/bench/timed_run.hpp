// The one place bench times an engine: greedy runs of `prompts.size()`
// sequences together, as clients see them. Each prompt goes in as one
// prefill chunk, one sequence after another (as a server admits requests
// that arrive together); each decode step then carries, for every sequence,
// the token its previous step chose. Nothing but the step calls and reading
// the clock happens between the first prefill and the last token.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bench/run_figures.hpp"
#include "engine/engine_session.hpp"

namespace algenta::host::bench {

struct TimedRun {
  RunTiming timing;
  std::chrono::steady_clock::time_point first_token_at;  // the first sequence's
  // Read after the last token, while the sequences still hold their KV cache.
  MemoryReport memory;
  // Device-to-host bytes per decode step, as the engine reported them (ABI
  // 1.3), averaged over the run's decode steps; nullopt when a step had no
  // report (an engine before 1.3) or the run had no decode step.
  std::optional<double> decode_device_to_host_bytes;
};

// Sequences first_sequence_id, +1, ... get prompts[0], [1], ...; all prompts
// have one length; `generated` >= 1 tokens each. The sequences are freed
// afterwards, also on failure.
TimedRun time_greedy_run(EngineSession& session, std::uint64_t first_sequence_id,
                         const std::vector<std::vector<std::int32_t>>& prompts,
                         std::size_t generated);

}  // namespace algenta::host::bench
