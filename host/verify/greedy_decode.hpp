// Greedy continuation of one sequence on an open engine: the prompt as one
// prefill chunk, then one token per step, each step feeding the token the
// previous one chose. The sequence is freed afterwards, also on failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/engine_session.hpp"

namespace algenta::host {

struct GreedyRun {
  std::vector<std::int32_t> tokens;  // `count` generated ids
  // With keep_logits: per generated token, the vocab floats that chose it
  // (the last prompt position for the first token, then each decode step).
  std::vector<float> logits;
};

GreedyRun greedy_decode(EngineSession& session, std::uint64_t sequence_id,
                        const std::vector<std::int32_t>& prompt, std::size_t count,
                        bool keep_logits);

// Greedy's choice in one row and how close it was to another token.
struct RowTop {
  std::int32_t token = 0;  // the largest logit's id, the lowest id on a tie (as engines choose)
  float margin = 0;        // top-1 minus top-2; 0 on a tie or a row of fewer than two entries
};
RowTop row_top(std::span<const float> row);

// Top-1 minus top-2 logit of one row: row_top(row).margin.
float top_margin(std::span<const float> row);

}  // namespace algenta::host
