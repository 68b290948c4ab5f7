// The one place bench times an engine: a greedy run of one sequence as a
// client sees it. The prompt goes in as one prefill chunk; each step then
// feeds back the token the previous one chose. Nothing but the step calls
// and reading the clock happens between the first and the last token.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench/run_figures.hpp"
#include "engine/engine_session.hpp"

namespace algenta::host::bench {

struct TimedRun {
  RunTiming timing;
  std::chrono::steady_clock::time_point first_token_at;
  // Read after the last token, while the sequence still holds its KV cache.
  MemoryReport memory;
};

// `generated` >= 1 tokens. The sequence is freed afterwards, also on failure.
TimedRun time_greedy_run(EngineSession& session, std::uint64_t sequence_id,
                         const std::vector<std::int32_t>& prompt, std::size_t generated);

}  // namespace algenta::host::bench
