// The CUDA engine's KV block bookkeeping (host side, no GPU): a step that
// does not fit is refused before anything changes, a failed step is undone,
// freed blocks go to the next sequences in another order, and a pass's
// block table rows are made alike from its own blocks and the host's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "paged_kv.hpp"
#include "table_rows.hpp"
#include "plugin_support/plugin_error.hpp"

using algenta::cuda::PagedKvBlocks;
using algenta::decoder::PlannedChunk;

namespace {

// A chunk of `count` tokens at `start` (token values do not matter here).
PlannedChunk chunk(std::uint64_t id, std::size_t start, std::size_t count) {
  static const std::vector<std::int32_t> tokens(4096, 1);
  PlannedChunk planned;
  planned.sequence_id = id;
  planned.starts_sequence = start == 0;
  planned.start = start;
  planned.tokens = {tokens.data(), count};
  return planned;
}

void run(PagedKvBlocks& blocks, const std::vector<PlannedChunk>& chunks) {
  blocks.reserve(chunks);
  for (const PlannedChunk& c : chunks) blocks.set_length(c.sequence_id, c.start + c.tokens.size());
}

}  // namespace

TEST_CASE("KV blocks hold 32 tokens and are handed out per step", "[paged-kv]") {
  PagedKvBlocks blocks(10);
  run(blocks, {chunk(1, 0, 33), chunk(2, 0, 32)});
  CHECK(blocks.blocks_of(1).size() == 2);
  CHECK(blocks.blocks_of(2).size() == 1);
  CHECK(blocks.free_blocks() == 7);
  CHECK(blocks.cached_length(1) == 33u);
  CHECK_FALSE(blocks.cached_length(3).has_value());
  // One more token for sequence 2 needs a second block; sequence 1 has room.
  CHECK(blocks.blocks_needed({chunk(1, 33, 1), chunk(2, 32, 1)}) == 1);
}

TEST_CASE("a step the pool cannot hold is refused and changes nothing", "[paged-kv]") {
  PagedKvBlocks blocks(4);
  run(blocks, {chunk(1, 0, 64)});
  try {
    blocks.reserve({chunk(2, 0, 65)});  // 3 blocks, 2 free
    FAIL("the step was not refused");
  } catch (const algenta::plugin::StatusError& e) {
    CHECK(e.code == ALGENTA_STATUS_OUT_OF_MEMORY);
    CHECK_THAT(e.message, Catch::Matchers::Contains("needs 3 more blocks of 32 tokens but 2 of 4 are free"));
  }
  CHECK(blocks.free_blocks() == 2);
  CHECK(blocks.live_count() == 1);
  CHECK_FALSE(blocks.cached_length(2).has_value());
}

TEST_CASE("a failed step is rolled back: new sequences go, old ones keep their length", "[paged-kv]") {
  PagedKvBlocks blocks(8);
  run(blocks, {chunk(1, 0, 30)});
  const std::vector<PlannedChunk> step = {chunk(1, 30, 40), chunk(2, 0, 50)};
  blocks.reserve(step);
  CHECK(blocks.free_blocks() == 8 - 3 - 2);
  blocks.roll_back(step);
  CHECK(blocks.free_blocks() == 7);
  CHECK(blocks.blocks_of(1).size() == 1);
  CHECK(blocks.cached_length(1) == 30u);
  CHECK_FALSE(blocks.cached_length(2).has_value());
}

TEST_CASE("freed blocks are reused by later sequences in another order", "[paged-kv]") {
  PagedKvBlocks blocks(10);
  run(blocks, {chunk(10, 0, 104), chunk(11, 0, 74), chunk(12, 0, 40)});
  const std::vector<std::int32_t> a = blocks.blocks_of(10);
  const std::vector<std::int32_t> b = blocks.blocks_of(11);
  blocks.release(11);
  blocks.release(10);
  run(blocks, {chunk(13, 0, 158)});
  const std::vector<std::int32_t> d = blocks.blocks_of(13);
  REQUIRE(d.size() == 5);
  std::vector<std::int32_t> freed = a;
  freed.insert(freed.end(), b.begin(), b.end());
  for (const std::int32_t block : d) {
    CHECK(std::find(freed.begin(), freed.end(), block) != freed.end());
  }
  // Not a prefix of either earlier list in its order: reuse is out of order.
  CHECK_FALSE(std::equal(d.begin(), d.begin() + 4, a.begin()));
  CHECK(blocks.free_blocks() == 1 + 3 + 4 - 5);
}

TEST_CASE("a pass's block table row: the blocks in order, then block 0", "[paged-kv]") {
  using algenta::cuda::append_table_row;
  std::vector<std::int32_t> tables;
  const std::vector<std::int32_t> own = {4, 2};
  append_table_row(tables, own, 4);
  // The host's ids (ABI 1.1) become the same int32 entries.
  const std::vector<std::uint32_t> host = {9, 0, 7};
  append_table_row(tables, host, 4);
  CHECK(tables == std::vector<std::int32_t>{4, 2, 0, 0, 9, 0, 7, 0});

  const std::vector<std::uint32_t> too_many = {1, 2, 3, 4, 5};
  const std::vector<std::uint32_t> too_large = {1u << 31};
  for (const auto* blocks : {&too_many, &too_large}) {
    try {
      append_table_row(tables, *blocks, 4);
      FAIL("the row was not refused");
    } catch (const algenta::plugin::StatusError& e) {
      CHECK(e.code == ALGENTA_STATUS_INTERNAL);
    }
  }
}
