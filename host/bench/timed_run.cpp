#include "bench/timed_run.hpp"

namespace algenta::host::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Frees the sequence when the run ends, however it ends.
struct SequenceGuard {
  EngineSession& session;
  std::uint64_t id;
  ~SequenceGuard() {
    try {
      session.free_sequences({id});
    } catch (...) {
      // The engine failed already; the error that ended the run is reported.
    }
  }
};

}  // namespace

TimedRun time_greedy_run(EngineSession& session, std::uint64_t sequence_id,
                         const std::vector<std::int32_t>& prompt, std::size_t generated) {
  SequenceGuard guard{session, sequence_id};
  std::vector<Clock::time_point> arrived;
  arrived.reserve(generated);

  const Clock::time_point start = Clock::now();
  std::int32_t token = session.step({{sequence_id, prompt, 0, ALGENTA_LOGITS_NONE}}).next_tokens[0];
  arrived.push_back(Clock::now());
  for (std::size_t i = 1; i < generated; ++i) {
    const auto position = static_cast<std::uint32_t>(prompt.size() + i - 1);
    token = session.step({{sequence_id, {token}, position, ALGENTA_LOGITS_NONE}}).next_tokens[0];
    arrived.push_back(Clock::now());
  }

  TimedRun run;
  run.memory = session.memory_report();
  run.first_token_at = arrived.front();
  run.timing.prompt_tokens = prompt.size();
  for (const Clock::time_point at : arrived) {
    run.timing.token_seconds.push_back(std::chrono::duration<double>(at - start).count());
  }
  return run;
}

}  // namespace algenta::host::bench
