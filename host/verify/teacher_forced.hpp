// The plugin and the oracle fed the same tokens, position by position: the
// prompt (prefill chunks, every position's logits), then the oracle's own
// greedy continuation one decode step at a time. A disagreement never ends
// the comparison: the plugin goes on being fed the oracle's tokens, so
// every position is judged in the context the oracle saw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/engine_session.hpp"

namespace algenta::host {

// Prompt tokens per prefill step: bounds the logits held at once
// (kTeacherForcedChunk x vocab floats per engine).
inline constexpr std::size_t kTeacherForcedChunk = 128;

// One position: the next-token logits both computed there.
struct PositionComparison {
  std::size_t position = 0;     // the position whose logits these are
  std::int32_t plugin_top = 0;  // the plugin's greedy choice there
  std::int32_t oracle_top = 0;  // the oracle's
  float oracle_margin = 0;      // the oracle's top-1 minus top-2
  float diff_abs = 0;           // largest |plugin - oracle| logit
  float diff_relative = 0;      // diff_abs over the largest |oracle logit|

  bool agrees() const { return plugin_top == oracle_top; }
};

struct TeacherForcedRun {
  // Every prompt position, then one per generated token but the last:
  // prompt.size() + generated - 1 positions.
  std::vector<PositionComparison> positions;
  std::vector<std::int32_t> oracle_tokens;  // the oracle's greedy continuation
};

// `generated` >= 1 tokens of the oracle's continuation. The sequence is
// freed on both engines afterwards, also on failure.
TeacherForcedRun teacher_forced(EngineSession& plugin, EngineSession& oracle,
                                std::uint64_t sequence_id, const std::vector<std::int32_t>& prompt,
                                std::size_t generated);

}  // namespace algenta::host
