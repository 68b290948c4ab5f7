// A step's chunks checked against the live sequences before anything is
// computed, so a refused step changes nothing. Each refusal is a
// plugin::StatusError (INVALID_ARGUMENT) naming the sequence and numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "algenta/plugin_abi.h"

namespace algenta::decoder {

// What an engine knows about its live sequences, as the planner needs it.
class LiveSequences {
 public:
  virtual ~LiveSequences() = default;
  // Tokens cached for `id`, or nothing when the sequence is not live.
  virtual std::optional<std::size_t> cached_length(std::uint64_t id) const = 0;
  virtual std::size_t live_count() const = 0;
};

// The paged cache's geometry when the engine accepted the host's block
// tables at open (ABI 1.1); block_tokens 0 when it keeps its own cache.
struct HostBlockGeometry {
  std::size_t block_tokens = 0;  // positions per block
  std::size_t blocks_total = 0;  // valid ids are [0, blocks_total)
  bool accepted() const { return block_tokens > 0; }
};

struct EngineLimits {
  std::size_t max_context = 0;    // positions per sequence
  std::size_t vocab = 0;          // valid token ids are [0, vocab)
  std::size_t max_sequences = 0;  // live at once
  HostBlockGeometry host_blocks;  // accepted: every chunk brings its block table
  bool engine_sampling = false;   // accepted at open (ABI 1.2): chunks may bring sampling
};

struct PlannedChunk {
  std::uint64_t sequence_id = 0;
  // The step creates the sequence: a chunk at position 0, or, with host
  // block tables, the first chunk of a sequence whose earlier positions
  // another sequence computed (a prefix the host shares).
  bool starts_sequence = false;
  std::size_t start = 0;  // first position
  std::span<const std::int32_t> tokens;
  AlgentaLogitsRequest logits = ALGENTA_LOGITS_NONE;
  std::size_t logits_offset = 0;  // floats into the step's logits buffer
  // With host block tables: the blocks covering positions 0 .. start +
  // tokens.size() - 1 (the caller's memory, valid during the call).
  std::span<const std::uint32_t> block_table;
  // With engine sampling: how the next token is drawn (checked; the
  // caller's memory, valid during the call), nullptr for the greedy token.
  const AlgentaSampling* sampling = nullptr;
};

struct StepPlan {
  std::vector<PlannedChunk> chunks;
  std::size_t total_tokens = 0;
  std::size_t logits_floats = 0;
};

// Refuses: a short struct, a chunk without tokens, an unknown logits
// request, a sequence twice in one step, a new sequence whose id is live, a
// chunk that does not start at its sequence's cached length, positions past
// the context, token ids outside the vocabulary, more live sequences than
// allowed, and a logits buffer smaller than the requested logits. With host
// block tables also what block_table_check.hpp refuses; a new sequence may
// then start past position 0. With engine sampling also what
// chunk_sampling.hpp refuses.
StepPlan plan_step(const AlgentaEngineStep_Args& args, const LiveSequences& live,
                   const EngineLimits& limits);

// Refuses (INVALID_ARGUMENT) a free request with a NULL id list or any id
// that is not live, before anything is freed.
void check_free_request(const AlgentaSequencesFree_Args& args, const LiveSequences& live);

}  // namespace algenta::decoder
