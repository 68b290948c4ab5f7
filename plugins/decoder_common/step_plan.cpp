#include "step_plan.hpp"

#include <set>
#include <string>

#include "block_table_check.hpp"
#include "chunk_sampling.hpp"
#include "plugin_support/plugin_error.hpp"

namespace algenta::decoder {
namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, message};
}

std::string sequence_text(std::uint64_t id) { return "sequence " + std::to_string(id); }

// The sequence's place in the cache: a new one starts at 0 (or, with host
// block tables, where the shared prefix its table lists ends), a live one
// continues exactly where its cached tokens end. True for a new sequence.
bool check_start(const AlgentaSequenceChunk& chunk, const LiveSequences& sequences,
                 bool host_block_tables) {
  const std::optional<std::size_t> live = sequences.cached_length(chunk.sequence_id);
  const std::string who = sequence_text(chunk.sequence_id);
  if (chunk.start_position == 0) {
    if (live.has_value()) {
      refuse(who + " already holds " + std::to_string(*live) +
             " tokens; a chunk at position 0 starts a new sequence (free it first)");
    }
    return true;
  }
  if (!live.has_value()) {
    if (host_block_tables) return true;
    refuse(who + " is not live, so its chunk must start at position 0, not " +
           std::to_string(chunk.start_position));
  }
  if (chunk.start_position != *live) {
    refuse(who + ": chunk starts at position " + std::to_string(chunk.start_position) +
           " but the sequence holds " + std::to_string(*live) + " tokens");
  }
  return false;
}

void check_tokens(const AlgentaSequenceChunk& chunk, const EngineLimits& limits) {
  const std::string who = sequence_text(chunk.sequence_id);
  const std::uint64_t last = std::uint64_t{chunk.start_position} + chunk.token_count - 1;
  if (last >= limits.max_context) {
    refuse(who + ": positions " + std::to_string(chunk.start_position) + ".." +
           std::to_string(last) + " exceed the context of " + std::to_string(limits.max_context) +
           " tokens");
  }
  for (std::uint32_t i = 0; i < chunk.token_count; ++i) {
    const std::int32_t token = chunk.tokens[i];
    if (token < 0 || static_cast<std::uint64_t>(token) >= limits.vocab) {
      refuse(who + ": token id " + std::to_string(token) + " at position " +
             std::to_string(std::uint64_t{chunk.start_position} + i) +
             " is outside the vocabulary [0, " + std::to_string(limits.vocab) + ")");
    }
  }
}

std::size_t requested_logits(const AlgentaSequenceChunk& chunk, std::size_t vocab) {
  switch (chunk.want_logits) {
    case ALGENTA_LOGITS_NONE:
      return 0;
    case ALGENTA_LOGITS_LAST:
      return vocab;
    case ALGENTA_LOGITS_ALL:
      return std::size_t{chunk.token_count} * vocab;
    default:
      refuse(sequence_text(chunk.sequence_id) + ": want_logits is " +
             std::to_string(chunk.want_logits) + "; allowed: 0 (none), 1 (last), 2 (all)");
  }
}

}  // namespace

StepPlan plan_step(const AlgentaEngineStep_Args& args, const LiveSequences& sequences,
                   const EngineLimits& limits) {
  StepPlan plan;
  if (args.chunk_count == 0) return plan;
  if (args.chunks == nullptr)
    refuse("chunks is NULL with chunk_count " + std::to_string(args.chunk_count));
  if (args.next_tokens == nullptr) refuse("next_tokens is NULL; it receives one token per chunk");
  // The caller's stride, not this build's sizeof: a newer host's chunks may be larger.
  if (args.chunk_stride < ALGENTA_SequenceChunk_STRUCT_SIZE_1_0) {
    refuse("chunk_stride is " + std::to_string(args.chunk_stride) +
           " bytes; an AlgentaSequenceChunk of ABI 1.0 takes " +
           std::to_string(ALGENTA_SequenceChunk_STRUCT_SIZE_1_0));
  }

  std::set<std::uint64_t> seen;
  std::size_t new_sequences = 0;
  for (std::size_t i = 0; i < args.chunk_count; ++i) {
    const AlgentaSequenceChunk& chunk = plugin::element_at(args.chunks, args.chunk_stride, i);
    plugin::require_struct_size(chunk.struct_size, ALGENTA_SequenceChunk_STRUCT_SIZE_1_0,
                                "AlgentaSequenceChunk");
    if (chunk.struct_size > args.chunk_stride) {
      refuse("chunk " + std::to_string(i) + " has struct_size " +
             std::to_string(chunk.struct_size) + ", larger than chunk_stride " +
             std::to_string(args.chunk_stride));
    }
    const std::string who = sequence_text(chunk.sequence_id);
    if (chunk.token_count == 0) refuse(who + ": chunk " + std::to_string(i) + " has no tokens");
    if (chunk.tokens == nullptr) refuse(who + ": tokens is NULL");
    if (!seen.insert(chunk.sequence_id).second) {
      refuse(who + " appears in more than one chunk of this step");
    }
    const bool starts = check_start(chunk, sequences, limits.host_blocks.accepted());
    check_tokens(chunk, limits);

    PlannedChunk planned;
    if (limits.host_blocks.accepted()) {
      planned.block_table = checked_block_table(chunk, limits.host_blocks);
    }
    if (limits.engine_sampling) planned.sampling = checked_sampling(chunk, limits.vocab);
    planned.sequence_id = chunk.sequence_id;
    planned.starts_sequence = starts;
    planned.start = chunk.start_position;
    planned.tokens = {chunk.tokens, chunk.token_count};
    planned.logits = chunk.want_logits;
    planned.logits_offset = plan.logits_floats;
    plan.logits_floats += requested_logits(chunk, limits.vocab);
    plan.total_tokens += chunk.token_count;
    if (planned.starts_sequence) ++new_sequences;
    plan.chunks.push_back(planned);
  }

  if (limits.host_blocks.accepted()) refuse_shared_writes(plan.chunks, limits.host_blocks);
  if (sequences.live_count() + new_sequences > limits.max_sequences) {
    refuse("this step would make " + std::to_string(sequences.live_count() + new_sequences) +
           " sequences live; the engine holds at most " + std::to_string(limits.max_sequences) +
           " (free some first)");
  }
  if (plan.logits_floats > 0 &&
      (args.logits == nullptr || args.logits_capacity < plan.logits_floats)) {
    refuse("the requested logits need " + std::to_string(plan.logits_floats) +
           " floats but the logits buffer holds " +
           std::to_string(args.logits == nullptr ? 0 : args.logits_capacity));
  }
  return plan;
}

void check_free_request(const AlgentaSequencesFree_Args& args, const LiveSequences& live) {
  if (args.sequence_count > 0 && args.sequence_ids == nullptr) {
    refuse("sequence_ids is NULL with sequence_count " + std::to_string(args.sequence_count));
  }
  for (std::size_t i = 0; i < args.sequence_count; ++i) {
    if (!live.cached_length(args.sequence_ids[i]).has_value()) {
      refuse("sequence " + std::to_string(args.sequence_ids[i]) + " is not live; nothing was freed");
    }
  }
}

}  // namespace algenta::decoder
