#include "verify/teacher_forced.hpp"

#include <algorithm>
#include <span>

#include "verify/greedy_decode.hpp"
#include "verify/logit_difference.hpp"

namespace algenta::host {
namespace {

// Feeds `tokens` at `start` to both engines and compares every row asked
// for; returns the oracle's next token.
std::int32_t step_both(EngineSession& plugin, EngineSession& oracle, std::uint64_t sequence_id,
                       std::vector<std::int32_t> tokens, std::size_t start,
                       std::vector<PositionComparison>& positions) {
  const AlgentaLogitsRequest want = tokens.size() == 1 ? ALGENTA_LOGITS_LAST : ALGENTA_LOGITS_ALL;
  const auto position = static_cast<std::uint32_t>(start);
  const std::size_t rows = tokens.size();
  const StepResult got = plugin.step({{sequence_id, tokens, position, want}});
  const StepResult expected = oracle.step({{sequence_id, std::move(tokens), position, want}});
  const std::size_t vocab = oracle.vocab_size();
  for (std::size_t r = 0; r < rows; ++r) {
    const std::span<const float> got_row = std::span<const float>(got.logits).subspan(r * vocab, vocab);
    const std::span<const float> want_row =
        std::span<const float>(expected.logits).subspan(r * vocab, vocab);
    const RowTop oracle_top = row_top(want_row);
    const RowDifference difference = row_difference(got_row, want_row);
    positions.push_back({start + r, row_top(got_row).token, oracle_top.token, oracle_top.margin,
                         difference.abs, difference.relative});
  }
  return expected.next_tokens[0];
}

void free_quietly(EngineSession& session, std::uint64_t sequence_id) {
  try {
    session.free_sequences({sequence_id});
  } catch (...) {
    // The engine's first error is what matters; a failed free would hide it.
  }
}

}  // namespace

TeacherForcedRun teacher_forced(EngineSession& plugin, EngineSession& oracle,
                                std::uint64_t sequence_id, const std::vector<std::int32_t>& prompt,
                                std::size_t generated) {
  TeacherForcedRun run;
  run.positions.reserve(prompt.size() + generated);
  try {
    std::int32_t next = 0;
    for (std::size_t start = 0; start < prompt.size(); start += kTeacherForcedChunk) {
      const std::size_t end = std::min(prompt.size(), start + kTeacherForcedChunk);
      next = step_both(plugin, oracle, sequence_id,
                       std::vector<std::int32_t>(prompt.begin() + static_cast<std::ptrdiff_t>(start),
                                                 prompt.begin() + static_cast<std::ptrdiff_t>(end)),
                       start, run.positions);
    }
    run.oracle_tokens.push_back(next);
    while (run.oracle_tokens.size() < generated) {
      const std::size_t start = prompt.size() + run.oracle_tokens.size() - 1;
      run.oracle_tokens.push_back(
          step_both(plugin, oracle, sequence_id, {run.oracle_tokens.back()}, start, run.positions));
    }
  } catch (...) {
    free_quietly(plugin, sequence_id);
    free_quietly(oracle, sequence_id);
    throw;
  }
  plugin.free_sequences({sequence_id});
  oracle.free_sequences({sequence_id});
  return run;
}

}  // namespace algenta::host
