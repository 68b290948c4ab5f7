// One engine step as the scheduler planned it: the rows to run (one per
// sequence: a decode token or a prefill chunk) and the sequences the engine
// must forget before it runs them.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/block_pool.hpp"

namespace algenta::sched {

using SequenceId = std::uint64_t;

struct StepRow {
  SequenceId sequence_id = 0;
  std::uint32_t start_position = 0;  // the sequence's cached length before this row
  std::uint32_t token_count = 0;     // a prompt chunk, or 1 for a decode token
  bool is_prefill = false;
  bool is_last_prompt_chunk = false;  // the prefill row after which the first token is sampled
  // The sequence's blocks, covering positions 0 .. start_position + token_count - 1
  // (and possibly more): block i holds positions [i * tokens_per_block, (i + 1) * tokens_per_block).
  std::vector<BlockId> block_table;

  // Whether the engine's output for this row is a token of the answer (every
  // decode row, and the last chunk of a prompt); other rows need no logits.
  bool samples_next_token() const { return !is_prefill || is_last_prompt_chunk; }
};

struct StepPlan {
  std::uint64_t step = 0;  // serial number; complete() takes only the latest plan
  // Sequences the engine holds that ended or were cancelled: free them
  // (sequences_free) before running the rows. Listed in one plan only, and
  // only sequences a completed step has sent to the engine.
  std::vector<SequenceId> to_free;
  // Decode rows first, in admission order; then prefill chunks, in admission
  // order. May be empty while to_free is not.
  std::vector<StepRow> rows;

  std::uint32_t token_count() const {
    std::uint32_t tokens = 0;
    for (const StepRow& row : rows) tokens += row.token_count;
    return tokens;
  }
  std::uint32_t decode_rows() const {
    std::uint32_t decodes = 0;
    for (const StepRow& row : rows) decodes += row.is_prefill ? 0 : 1;
    return decodes;
  }
};

// What the engine loop learned from a row: whether the token it sampled ended
// the sequence (end of sequence, a stop id or string, max_tokens). Rows that
// sample nothing always continue.
enum class RowResult : std::uint8_t { continues, finished };

}  // namespace algenta::sched
