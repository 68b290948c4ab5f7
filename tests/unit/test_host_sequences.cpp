// What an engine that took the host's block tables remembers (shared by the
// oracle and the CUDA engines, no GPU): a sequence is live once a step that
// names it succeeded, may start past position 0 on a prefix, continues where
// it ended, and is forgotten without touching the blocks; blocks free are
// those no live sequence's latest table lists.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "host_sequences.hpp"
#include "plugin_support/plugin_error.hpp"
#include "step_plan.hpp"

using algenta::decoder::EngineLimits;
using algenta::decoder::HostSequences;
using algenta::decoder::PlannedChunk;
using algenta::decoder::StepPlan;
using Catch::Matchers::Contains;

namespace {

struct Chunk {
  std::uint64_t id;
  std::uint32_t start;
  std::uint32_t count;
  std::vector<std::uint32_t> table;
};

const std::vector<std::int32_t> kTokens(512, 1);

EngineLimits limits() {
  EngineLimits l;
  l.max_context = 256;
  l.vocab = 8;
  l.max_sequences = 4;
  l.host_blocks = {32, 10};
  return l;
}

// plan_step over the chunks; on success every chunk is committed, as an
// engine does after its step ran.
StepPlan step(HostSequences& sequences, const std::vector<Chunk>& chunks) {
  std::vector<AlgentaSequenceChunk> abi;
  for (const Chunk& c : chunks) {
    abi.push_back({ALGENTA_SequenceChunk_STRUCT_SIZE, c.id, kTokens.data(), c.count, c.start,
                   ALGENTA_LOGITS_NONE, c.table.data(), static_cast<std::uint32_t>(c.table.size())});
  }
  std::vector<std::int32_t> next(chunks.size());
  AlgentaEngineStep_Args args{};
  args.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  args.chunks = abi.data();
  args.chunk_count = abi.size();
  args.chunk_stride = sizeof(AlgentaSequenceChunk);
  args.next_tokens = next.data();
  const StepPlan plan = algenta::decoder::plan_step(args, sequences, limits());
  for (const PlannedChunk& chunk : plan.chunks) sequences.commit(chunk);
  return plan;
}

std::string refusal(HostSequences& sequences, const std::vector<Chunk>& chunks) {
  try {
    step(sequences, chunks);
  } catch (const algenta::plugin::StatusError& e) {
    CHECK(e.code == ALGENTA_STATUS_INVALID_ARGUMENT);
    return e.message;
  }
  return "not refused";
}

}  // namespace

TEST_CASE("host sequences: lengths follow committed chunks, a prefix hit starts past 0",
          "[decoder]") {
  HostSequences sequences(10);
  CHECK(sequences.blocks_free() == 10);
  step(sequences, {{1, 0, 64, {3, 4}}});
  CHECK(sequences.cached_length(1) == 64u);
  CHECK(sequences.live_count() == 1);
  CHECK(sequences.blocks_free() == 8);

  // Sequence 2 starts at 64 on sequence 1's blocks, with one block of its own.
  const StepPlan hit = step(sequences, {{2, 64, 10, {3, 4, 7}}});
  REQUIRE(hit.chunks.size() == 1);
  CHECK(hit.chunks[0].starts_sequence);
  CHECK(hit.chunks[0].block_table.size() == 3);
  CHECK(sequences.cached_length(2) == 74u);
  CHECK(sequences.blocks_free() == 7);  // 3, 4 listed twice count once

  // Both go on where they ended; a table's entries past the chunk are not kept.
  step(sequences, {{1, 64, 1, {3, 4, 5, 9}}, {2, 74, 1, {3, 4, 7}}});
  CHECK(sequences.cached_length(1) == 65u);
  CHECK(sequences.cached_length(2) == 75u);
  CHECK(sequences.blocks_free() == 6);  // 3, 4, 5, 7 listed

  // Freeing a sequence that is not live is refused and changes nothing.
  const std::uint64_t unknown[] = {1, 99};
  AlgentaSequencesFree_Args free_unknown{};
  free_unknown.sequence_ids = unknown;
  free_unknown.sequence_count = 2;
  std::string refused = "not refused";
  try {
    sequences.free(free_unknown);
  } catch (const algenta::plugin::StatusError& e) {
    refused = e.message;
  }
  CHECK_THAT(refused, Contains("sequence 99 is not live; nothing was freed"));
  CHECK(sequences.live_count() == 2);

  // Forgetting sequence 1 leaves its shared blocks listed by sequence 2.
  const std::uint64_t first[] = {1};
  AlgentaSequencesFree_Args free_first{};
  free_first.sequence_ids = first;
  free_first.sequence_count = 1;
  sequences.free(free_first);
  CHECK_FALSE(sequences.cached_length(1).has_value());
  CHECK(sequences.live_count() == 1);
  CHECK(sequences.blocks_free() == 7);
}

TEST_CASE("host sequences: refused steps commit nothing", "[decoder]") {
  HostSequences sequences(10);
  step(sequences, {{1, 0, 40, {0, 1}}});
  CHECK_THAT(refusal(sequences, {{2, 0, 4, {10}}}),
             Contains("block table entry 0 is block 10; the cache's blocks are 0..9"));
  CHECK_THAT(refusal(sequences, {{2, 0, 33, {2}}}),
             Contains("the block table lists 1 blocks; positions 0..32 need 2 blocks of 32 tokens"));
  CHECK_THAT(refusal(sequences, {{1, 40, 2, {0, 1}}, {2, 0, 33, {5, 1}}}),
             Contains("sequence 1 writes block 1, which sequence 2 also lists"));
  CHECK_THAT(refusal(sequences, {{1, 41, 2, {0, 1}}}),
             Contains("chunk starts at position 41 but the sequence holds 40 tokens"));
  CHECK(sequences.live_count() == 1);
  CHECK(sequences.cached_length(1) == 40u);
  CHECK_FALSE(sequences.cached_length(2).has_value());
  CHECK(sequences.blocks_free() == 8);
}
