#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "sched/prefix_index.hpp"

using namespace algenta::sched;

namespace {

std::vector<std::int32_t> tokens(std::size_t count, std::int32_t first = 100) {
  std::vector<std::int32_t> t(count);
  std::iota(t.begin(), t.end(), first);
  return t;
}

// `count` blocks held once each, as a sequence's table.
std::vector<BlockId> take(BlockPool& pool, std::uint32_t count) {
  REQUIRE(pool.promise(count));
  std::vector<BlockId> blocks;
  for (std::uint32_t i = 0; i < count; ++i) blocks.push_back(pool.take_promised());
  return blocks;
}

}  // namespace

TEST_CASE("A block's key depends on its parent, its tokens and the policy") {
  const BlockKey root{};
  const auto a = tokens(4);
  const BlockKey k = block_key(root, "exact", a);
  CHECK(k == block_key(root, "exact", a));
  CHECK(k != block_key(root, "bf16", a));
  CHECK(k != block_key(block_key(root, "exact", a), "exact", a));
  auto b = a;
  b[3] += 1;
  CHECK(k != block_key(root, "exact", b));
  // Lengths are hashed too: the policy's bytes cannot pass for tokens.
  CHECK(block_key(root, "ab", tokens(1)) != block_key(root, "a", tokens(1)));
}

TEST_CASE("A prompt finds the whole blocks another sequence computed, in order") {
  BlockPool pool(16);
  PrefixIndex index(4, "exact");
  const auto system = tokens(12);  // three whole blocks
  const auto first = take(pool, 3);
  index.insert(system, first, pool);
  for (const BlockId b : first) CHECK(pool.ref_count(b) == 2);  // the sequence and the index

  auto prompt = system;
  for (int i = 0; i < 5; ++i) prompt.push_back(900 + i);
  CHECK(index.match(prompt) == first);

  // A prompt that differs inside block 2 shares blocks 0 and 1 only.
  auto other = prompt;
  other[9] = 7;
  CHECK(index.match(other) == std::vector<BlockId>{first[0], first[1]});
  // Nothing in common: nothing found.
  CHECK(index.match(tokens(10, 5000)).empty());
}

TEST_CASE("A hit always leaves at least two prompt tokens to prefill") {
  BlockPool pool(16);
  PrefixIndex index(4, "exact");
  const auto cached = tokens(12);
  const auto blocks = take(pool, 3);
  index.insert(cached, blocks, pool);
  // The whole prompt cached: back off one block (4 tokens left).
  CHECK(index.match(cached).size() == 2);
  // One token past the cache: back off one block (5 left), never a 1-token chunk.
  CHECK(index.match(tokens(13)).size() == 2);
  // Two past it: all three blocks serve.
  CHECK(index.match(tokens(14)).size() == 3);
  // A prompt of one block: nothing (it must be computed for its logits).
  CHECK(index.match(tokens(4)).empty());
}

TEST_CASE("Only whole computed blocks are listed, and a key listed already keeps its block") {
  BlockPool pool(16);
  PrefixIndex index(4, "exact");
  const auto a = take(pool, 3);
  index.insert(tokens(10), a, pool);  // blocks 0, 1 whole; block 2 half
  CHECK(index.size() == 2);
  CHECK(pool.ref_count(a[2]) == 1);

  const auto b = take(pool, 2);
  index.insert(tokens(8), b, pool);  // the same two keys
  CHECK(index.size() == 2);
  CHECK(pool.ref_count(b[0]) == 1);  // not taken: the index lists a[0]
  CHECK(index.match(tokens(11)) == std::vector<BlockId>{a[0], a[1]});
}

TEST_CASE("Eviction frees only blocks no sequence lists, least recently used first") {
  BlockPool pool(8);
  PrefixIndex index(2, "exact");
  const auto old_seq = take(pool, 2);
  index.insert(tokens(4, 10), old_seq, pool);
  const auto new_seq = take(pool, 2);
  index.insert(tokens(4, 50), new_seq, pool);
  // Both sequences still hold their blocks: nothing is evictable.
  CHECK(index.evictable(pool) == 0);
  CHECK(index.evict(4, pool) == 0);

  for (const BlockId b : old_seq) pool.release(b);  // the old sequence ends
  for (const BlockId b : new_seq) pool.release(b);
  CHECK(index.evictable(pool) == 4);
  index.match(tokens(6, 10));  // the old prefix is used again: now the most recent
  const std::uint32_t free_before = pool.free_count();
  CHECK(index.evict(2, pool) == 2);
  CHECK(pool.free_count() == free_before + 2);
  // The new sequence's blocks went first; the old prefix is still found.
  CHECK(index.match(tokens(6, 50)).empty());
  CHECK(index.match(tokens(6, 10)) == std::vector<BlockId>{old_seq[0], old_seq[1]});
}
