// The CPU oracle plugin end to end, through the ABI, on tiny seeded
// checkpoints of each family: agreement with an independent reference, and
// results that do not depend on chunking, batching, threads or the CPU's
// vector width.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/bundle_fixture.hpp"
#include "unit/test_oracle_fixture.hpp"

using namespace algenta::test::oracle;
using algenta::checkpoint::Dtype;
using algenta::test::TempDir;

namespace {

constexpr std::uint64_t kSeed = 20240611;

struct FamilyCheckpoint {
  TempDir dir;
  TinyModel model;
  fs::path path;
  explicit FamilyCheckpoint(const std::string& family, Dtype dtype = Dtype::BF16)
      : model(make_tiny_model(tiny_config(family), kSeed)), path(dir.path() / "ckpt") {
    write_checkpoint(model, path, dtype);
  }
};

std::vector<float> run_alone(const Plugin& plugin, const fs::path& checkpoint,
                             const std::vector<std::vector<ChunkSpec>>& steps,
                             const EngineOptions& options = {}) {
  Engine engine(plugin, checkpoint, options);
  std::vector<float> logits;
  for (const auto& step : steps) {
    const StepOutput out = engine.step(step);
    REQUIRE(out.outcome.ok());
    logits.insert(logits.end(), out.logits.begin(), out.logits.end());
    for (const std::int32_t t : out.next_tokens) logits.push_back(static_cast<float>(t));
  }
  return logits;
}

}  // namespace

TEST_CASE("oracle: logits agree with a double-precision reference for every family", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  for (const std::string& family : tiny_families()) {
    DYNAMIC_SECTION(family) {
      const FamilyCheckpoint ckpt(family);
      const auto tokens = random_tokens(12, 101, kSeed + 1);
      const Verdict whole = matches_reference(plugin, ckpt.model, ckpt.path, tokens, {12});
      INFO(whole.detail);
      CHECK(whole.ok);
      const Verdict chunked = matches_reference(plugin, ckpt.model, ckpt.path, tokens, {5, 1, 6});
      INFO(chunked.detail);
      CHECK(chunked.ok);
    }
  }
}

TEST_CASE("oracle: one chunk, three chunks and token by token give the same bits", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  for (const std::string& family : tiny_families()) {
    DYNAMIC_SECTION(family) {
      const FamilyCheckpoint ckpt(family);
      const Verdict verdict =
          chunking_is_invisible(plugin, ckpt.path, random_tokens(13, 101, kSeed + 2));
      INFO(verdict.detail);
      CHECK(verdict.ok);
    }
  }
}

TEST_CASE("oracle: four ragged sequences in one step give exactly each one's logits alone",
          "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  for (const std::string& family : tiny_families()) {
    DYNAMIC_SECTION(family) {
      const FamilyCheckpoint ckpt(family);
      const auto a = random_tokens(9, 101, 11);
      const auto b = random_tokens(5, 101, 12);
      const auto c = random_tokens(1, 101, 13);
      const auto d = random_tokens(6, 101, 14);
      // History first (b and d already hold tokens), then one step mixing a
      // fresh prefill (a), a decode token (b), a one-token prompt (c) and a
      // continuing chunk (d), with each kind of logits request.
      const ChunkSpec b_history{2, {b.begin(), b.begin() + 4}, 0, ALGENTA_LOGITS_NONE};
      const ChunkSpec d_history{4, {d.begin(), d.begin() + 2}, 0, ALGENTA_LOGITS_LAST};
      const ChunkSpec a_chunk{1, a, 0, ALGENTA_LOGITS_ALL};
      const ChunkSpec b_chunk{2, {b.begin() + 4, b.end()}, 4, ALGENTA_LOGITS_LAST};
      const ChunkSpec c_chunk{3, c, 0, ALGENTA_LOGITS_ALL};
      const ChunkSpec d_chunk{4, {d.begin() + 2, d.end()}, 2, ALGENTA_LOGITS_ALL};

      Engine batched(plugin, ckpt.path);
      REQUIRE(batched.step({b_history, d_history}).outcome.ok());
      const StepOutput together = batched.step({a_chunk, b_chunk, c_chunk, d_chunk});
      REQUIRE(together.outcome.ok());

      std::vector<float> expected;
      std::vector<std::int32_t> expected_next;
      for (const auto& steps : std::vector<std::vector<std::vector<ChunkSpec>>>{
               {{a_chunk}}, {{b_history}, {b_chunk}}, {{c_chunk}}, {{d_history}, {d_chunk}}}) {
        Engine alone(plugin, ckpt.path);
        StepOutput last;
        for (const auto& step : steps) {
          last = alone.step(step);
          REQUIRE(last.outcome.ok());
        }
        expected.insert(expected.end(), last.logits.begin(), last.logits.end());
        expected_next.push_back(last.next_tokens[0]);
      }
      CHECK(same_bits(together.logits, expected));
      CHECK(together.next_tokens == expected_next);
    }
  }
}

TEST_CASE("oracle: 1, 2 and 3 threads and the generic loop give identical bits", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  for (const std::string& family : tiny_families()) {
    DYNAMIC_SECTION(family) {
      const FamilyCheckpoint ckpt(family);
      const auto tokens = random_tokens(10, 101, kSeed + 3);
      const std::vector<std::vector<ChunkSpec>> steps = {
          {{1, {tokens.begin(), tokens.begin() + 7}, 0, ALGENTA_LOGITS_ALL},
           {2, {tokens.begin() + 3, tokens.end()}, 0, ALGENTA_LOGITS_LAST}},
          {{1, {tokens.begin() + 7, tokens.end()}, 7, ALGENTA_LOGITS_ALL}}};
      const auto one = run_alone(plugin, ckpt.path, steps, {.threads = "1"});
      CHECK(same_bits(one, run_alone(plugin, ckpt.path, steps, {.threads = "2"})));
      CHECK(same_bits(one, run_alone(plugin, ckpt.path, steps, {.threads = "3"})));
      CHECK(
          same_bits(one, run_alone(plugin, ckpt.path, steps, {.threads = "2", .isa = "generic"})));
    }
  }
}

TEST_CASE("oracle: f32, bf16 and f16 checkpoints of the same values give identical logits",
          "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  for (const std::string& family : tiny_families()) {
    DYNAMIC_SECTION(family) {
      const FamilyCheckpoint f32(family, Dtype::F32);
      const FamilyCheckpoint bf16(family, Dtype::BF16);
      const FamilyCheckpoint f16(family, Dtype::F16);
      const auto tokens = random_tokens(8, 101, kSeed + 4);
      const std::vector<std::vector<ChunkSpec>> steps = {{{1, tokens, 0, ALGENTA_LOGITS_ALL}}};
      const auto from_f32 = run_alone(plugin, f32.path, steps);
      CHECK(same_bits(from_f32, run_alone(plugin, bf16.path, steps)));
      CHECK(same_bits(from_f32, run_alone(plugin, f16.path, steps)));
    }
  }
}

TEST_CASE("oracle: greedy next token is the argmax of the returned logits", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const FamilyCheckpoint ckpt("qwen3");
  Engine engine(plugin, ckpt.path);
  const StepOutput out = engine.step({{7, random_tokens(5, 101, 5), 0, ALGENTA_LOGITS_LAST}});
  REQUIRE(out.outcome.ok());
  REQUIRE(out.logits.size() == 101);
  std::int32_t best = 0;
  for (std::int32_t i = 1; i < 101; ++i) {
    if (out.logits[i] > out.logits[best]) best = i;
  }
  CHECK(out.next_tokens[0] == best);
}

TEST_CASE("oracle: open writes back the context and vocabulary; memory follows the cache",
          "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const FamilyCheckpoint ckpt("llama");
  AlgentaEngineOpen_Args args{};
  REQUIRE(Engine::try_open(plugin, ckpt.path, {}, &args).ok());
  CHECK(args.served_max_context == 64);  // max_position_embeddings
  CHECK(args.vocab_size == 101);
  REQUIRE(Engine::try_open(plugin, ckpt.path, {.max_context = 20}, &args).ok());
  CHECK(args.served_max_context == 20);

  Engine engine(plugin, ckpt.path);
  const AlgentaMemoryReport_Args empty = engine.memory();
  CHECK(empty.weight_bytes > 0);
  CHECK(empty.kv_cache_bytes == 0);
  CHECK(empty.device_free_bytes == 0);
  CHECK(empty.device_total_bytes == 0);
  REQUIRE(engine.step({{1, random_tokens(3, 101, 6), 0, ALGENTA_LOGITS_NONE}}).outcome.ok());
  const AlgentaMemoryReport_Args short_sequence = engine.memory();
  // 2 layers x (keys + values) x 3 positions x 2 kv heads x 16 floats x 4 bytes
  CHECK(short_sequence.kv_cache_bytes == 2 * 2 * 3 * 32 * 4);
  CHECK(short_sequence.workspace_bytes > 0);
  REQUIRE(engine.step({{1, random_tokens(4, 101, 7), 3, ALGENTA_LOGITS_NONE}}).outcome.ok());
  CHECK(engine.memory().kv_cache_bytes == 2 * 2 * 7 * 32 * 4);  // grew to 7, not to the context
  REQUIRE(engine.free({1}).ok());
  CHECK(engine.memory().kv_cache_bytes == 0);
}
