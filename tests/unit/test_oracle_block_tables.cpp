// The CPU oracle with the host's block tables (ABI 1.1): it takes the offer
// with 16-token blocks, gives the same bits as with its own cache (one chunk
// or many, a block table in any order, a sequence starting on blocks another
// one computed), drops only per-sequence state on free, and refuses bad
// tables before anything changes.
#include <catch2/catch.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "support/bundle_fixture.hpp"
#include "unit/test_oracle_fixture.hpp"

using namespace algenta::test::oracle;
using algenta::test::TempDir;
using Catch::Matchers::Contains;

namespace {

constexpr std::uint64_t kSeed = 20250301;
const EngineOptions kHostBlocks{.host_block_tables = true};

struct Checkpoint {
  TempDir dir;
  TinyModel model;
  fs::path path;
  explicit Checkpoint(const std::string& family)
      : model(make_tiny_model(tiny_config(family), kSeed)), path(dir.path() / "ckpt") {
    write_checkpoint(model, path, algenta::checkpoint::Dtype::BF16);
  }
};

std::vector<std::int32_t> slice(const std::vector<std::int32_t>& tokens, std::size_t from,
                                std::size_t to) {
  return {tokens.begin() + from, tokens.begin() + to};
}

// Every position's logits of `tokens` as sequence 1, fed in one chunk.
std::vector<float> cold(const Plugin& plugin, const fs::path& path,
                        const std::vector<std::int32_t>& tokens) {
  Engine engine(plugin, path);
  const StepOutput out = engine.step({{1, tokens, 0, ALGENTA_LOGITS_ALL}});
  REQUIRE(out.outcome.ok());
  return out.logits;
}

}  // namespace

TEST_CASE("oracle: offered host block tables, it takes them with 16-token blocks", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const Checkpoint ckpt("llama");  // context 64: 4 blocks a sequence
  AlgentaEngineOpen_Args args{};
  REQUIRE(Engine::try_open(plugin, ckpt.path, {.max_sequences = 3, .host_block_tables = true}, &args)
              .ok());
  CHECK(args.block_tables_accepted == 1);
  CHECK(args.kv_tokens_per_block == 16);
  CHECK(args.kv_blocks_total == 12);
  // kv_cache_bytes decides when given: a block is 2 layers x (k + v) x 16 x 32 floats.
  const std::uint64_t block_bytes = 2 * 2 * 16 * 32 * 4;
  REQUIRE(Engine::try_open(plugin, ckpt.path,
                           {.host_block_tables = true, .kv_cache_bytes = 5 * block_bytes + 7}, &args)
              .ok());
  CHECK(args.kv_blocks_total == 5);
  const Outcome none = Engine::try_open(
      plugin, ckpt.path, {.host_block_tables = true, .kv_cache_bytes = block_bytes - 1}, &args);
  CHECK(none.code == ALGENTA_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(none.message, Contains("holds no KV block") && Contains(std::to_string(block_bytes)));
  // Not offered: its own cache, as in ABI 1.0.
  REQUIRE(Engine::try_open(plugin, ckpt.path, {}, &args).ok());
  CHECK(args.block_tables_accepted == 0);
  CHECK(args.kv_tokens_per_block == 0);
}

TEST_CASE("oracle: host blocks give the bits of its own cache, chunked and shared", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  for (const std::string& family : tiny_families()) {
    DYNAMIC_SECTION(family) {
      const Checkpoint ckpt(family);
      const std::vector<std::int32_t> tokens = random_tokens(40, 101, kSeed + 1);
      const std::vector<float> expected = cold(plugin, ckpt.path, tokens);
      const std::size_t vocab = 101;

      Engine engine(plugin, ckpt.path, kHostBlocks);
      // Blocks out of order: 7, 2, 5 hold positions 0-15, 16-31, 32-47.
      const std::vector<std::uint32_t> table = {7, 2, 5};
      StepOutput first = engine.step({{1, slice(tokens, 0, 21), 0, ALGENTA_LOGITS_ALL, table}});
      REQUIRE(first.outcome.ok());
      StepOutput rest = engine.step({{1, slice(tokens, 21, 40), 21, ALGENTA_LOGITS_ALL, table}});
      REQUIRE(rest.outcome.ok());
      first.logits.insert(first.logits.end(), rest.logits.begin(), rest.logits.end());
      CHECK(same_bits(first.logits, expected));

      // Sequence 2 starts at 32 on sequence 1's first two blocks (a prefix
      // cache hit) with a block of its own: the same bits as a cold prefill.
      const StepOutput hit =
          engine.step({{2, slice(tokens, 32, 40), 32, ALGENTA_LOGITS_ALL, {7, 2, 9}}});
      REQUIRE(hit.outcome.ok());
      CHECK(same_bits(hit.logits, std::vector<float>(expected.begin() + 32 * vocab, expected.end())));

      // Freeing sequence 1 leaves the blocks' contents: sequence 3 still reads them.
      REQUIRE(engine.free({1}).ok());
      const StepOutput after_free =
          engine.step({{3, slice(tokens, 16, 40), 16, ALGENTA_LOGITS_ALL, {7, 11, 12}}});
      REQUIRE(after_free.outcome.ok());
      CHECK(same_bits(after_free.logits,
                      std::vector<float>(expected.begin() + 16 * vocab, expected.end())));
    }
  }
}

TEST_CASE("oracle: memory with host blocks counts blocks made and blocks no table lists",
          "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const Checkpoint ckpt("llama");
  Engine engine(plugin, ckpt.path, {.max_sequences = 2, .host_block_tables = true});
  CHECK(engine.memory().kv_tokens_per_block == 16);
  CHECK(engine.memory().kv_blocks_total == 8);
  CHECK(engine.memory().kv_blocks_free == 8);
  CHECK(engine.memory().kv_cache_bytes == 0);
  REQUIRE(engine.step({{1, random_tokens(20, 101, 3), 0, ALGENTA_LOGITS_NONE, {4, 6}}}).outcome.ok());
  const AlgentaMemoryReport_Args used = engine.memory();
  CHECK(used.kv_blocks_free == 6);
  CHECK(used.kv_cache_bytes == 2 * 2 * 2 * 16 * 32 * 4);  // two blocks made
  REQUIRE(engine.free({1}).ok());
  CHECK(engine.memory().kv_blocks_free == 8);
  CHECK(engine.memory().kv_cache_bytes == used.kv_cache_bytes);  // the host's to reuse
}

TEST_CASE("oracle: bad block tables are refused by name and change nothing", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const Checkpoint ckpt("llama");
  Engine engine(plugin, ckpt.path, {.max_sequences = 2, .host_block_tables = true});  // 8 blocks
  const std::vector<std::int32_t> tokens = random_tokens(20, 101, 4);
  REQUIRE(engine.step({{1, slice(tokens, 0, 18), 0, ALGENTA_LOGITS_NONE, {0, 1}}}).outcome.ok());

  struct Case {
    std::vector<ChunkSpec> chunks;
    std::string names;
  };
  const std::vector<Case> cases = {
      {{{2, slice(tokens, 0, 4), 0, ALGENTA_LOGITS_NONE, {}}}, "block_table is NULL"},
      {{{2, slice(tokens, 0, 17), 0, ALGENTA_LOGITS_NONE, {3}}},
       "the block table lists 1 blocks; positions 0..16 need 2 blocks of 16 tokens"},
      {{{2, slice(tokens, 0, 4), 0, ALGENTA_LOGITS_NONE, {8}}},
       "block table entry 0 is block 8; the cache's blocks are 0..7"},
      {{{2, slice(tokens, 0, 17), 0, ALGENTA_LOGITS_NONE, {3, 3}}}, "lists block 3 twice"},
      {{{1, slice(tokens, 18, 20), 18, ALGENTA_LOGITS_NONE, {0, 1}},
        {2, slice(tokens, 0, 17), 0, ALGENTA_LOGITS_NONE, {4, 1}}},
       "sequence 1 writes block 1, which sequence 2 also lists"},
      {{{2, slice(tokens, 16, 18), 16, ALGENTA_LOGITS_NONE, {5, 6}}},
       "reads position 0 from block 5 (offset 0), which no chunk has computed"},
  };
  for (const Case& c : cases) {
    INFO(c.names);
    const StepOutput out = engine.step(c.chunks);
    CHECK(out.outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(out.outcome.message, Contains(c.names));
  }
  // Nothing changed: sequence 1 goes on as if none of that happened.
  Engine fresh(plugin, ckpt.path);
  const StepOutput reference = fresh.step({{1, tokens, 0, ALGENTA_LOGITS_LAST}});
  const StepOutput next = engine.step({{1, slice(tokens, 18, 20), 18, ALGENTA_LOGITS_LAST, {0, 1}}});
  REQUIRE(next.outcome.ok());
  CHECK(same_bits(next.logits, reference.logits));
  CHECK(engine.memory().kv_blocks_free == 6);
}
