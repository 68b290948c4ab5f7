#include "bench/timed_run.hpp"

#include <stdexcept>

namespace algenta::host::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Frees the sequences that reached the engine when the run ends, however it
// ends.
struct SequencesGuard {
  EngineSession& session;
  std::vector<std::uint64_t> ids;
  ~SequencesGuard() {
    if (ids.empty()) return;
    try {
      session.free_sequences(ids);
    } catch (...) {
      // The engine failed already; the error that ended the run is reported.
    }
  }
};

}  // namespace

TimedRun time_greedy_run(EngineSession& session, std::uint64_t first_sequence_id,
                         const std::vector<std::vector<std::int32_t>>& prompts,
                         std::size_t generated) {
  if (prompts.empty() || prompts.front().empty() || generated == 0) {
    throw std::invalid_argument("time_greedy_run: needs prompts and at least one token");
  }
  const std::size_t length = prompts.front().size();
  for (const auto& prompt : prompts) {
    if (prompt.size() != length) throw std::invalid_argument("time_greedy_run: ragged prompts");
  }
  SequencesGuard guard{session, {}};
  std::vector<std::int32_t> tokens(prompts.size());
  std::vector<Clock::time_point> arrived;
  arrived.reserve(generated);
  Clock::time_point first_token_at;

  const Clock::time_point start = Clock::now();
  for (std::size_t s = 0; s < prompts.size(); ++s) {
    const std::uint64_t id = first_sequence_id + s;
    guard.ids.push_back(id);
    tokens[s] = session.step({{id, prompts[s], 0, ALGENTA_LOGITS_NONE}}).next_tokens.at(0);
    if (s == 0) first_token_at = Clock::now();
  }
  arrived.push_back(Clock::now());
  std::vector<ChunkRequest> step(prompts.size());
  std::uint64_t downloaded = 0;
  bool reported = generated > 1;
  for (std::size_t i = 1; i < generated; ++i) {
    const auto position = static_cast<std::uint32_t>(length + i - 1);
    for (std::size_t s = 0; s < prompts.size(); ++s) {
      step[s] = {first_sequence_id + s, {tokens[s]}, position, ALGENTA_LOGITS_NONE};
    }
    const StepResult result = session.step(step);
    for (std::size_t s = 0; s < prompts.size(); ++s) tokens[s] = result.next_tokens.at(s);
    arrived.push_back(Clock::now());
    reported = reported && result.device_to_host_bytes.has_value();
    downloaded += result.device_to_host_bytes.value_or(0);
  }

  TimedRun run;
  run.memory = session.memory_report();
  if (reported) {
    run.decode_device_to_host_bytes =
        static_cast<double>(downloaded) / static_cast<double>(generated - 1);
  }
  run.first_token_at = first_token_at;
  run.timing.prompt_tokens = length;
  run.timing.sequences = prompts.size();
  for (const Clock::time_point at : arrived) {
    run.timing.token_seconds.push_back(std::chrono::duration<double>(at - start).count());
  }
  return run;
}

}  // namespace algenta::host::bench
