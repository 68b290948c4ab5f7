// What the CPU oracle refuses, and that a refused step changes nothing.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "support/bundle_fixture.hpp"
#include "unit/test_oracle_fixture.hpp"

using namespace algenta::test::oracle;
using algenta::checkpoint::Dtype;
using algenta::test::TempDir;
using Catch::Contains;

namespace {

constexpr std::uint64_t kSeed = 77;

fs::path write_model(const TempDir& dir, const TinyModel& model, const std::string& name = "ckpt") {
  const fs::path path = dir.path() / name;
  write_checkpoint(model, path, Dtype::BF16);
  return path;
}

// A sequence of 4 tokens, then `refused` (which must be refused), then the
// same continuation a fresh engine gets: the logits must be the same bits.
void check_refusal_changes_nothing(const Plugin& plugin, const fs::path& checkpoint,
                                   const std::vector<ChunkSpec>& refused,
                                   std::optional<std::size_t> capacity,
                                   const std::string& expected_message) {
  const auto tokens = random_tokens(6, 101, kSeed);
  const ChunkSpec history{1, {tokens.begin(), tokens.begin() + 4}, 0, ALGENTA_LOGITS_NONE};
  const std::vector<ChunkSpec> next = {
      {1, {tokens.begin() + 4, tokens.end()}, 4, ALGENTA_LOGITS_ALL},
      {2, {tokens[0], tokens[1]}, 0, ALGENTA_LOGITS_ALL}};
  const EngineOptions options{.max_context = 8};

  Engine fresh(plugin, checkpoint, options);
  REQUIRE(fresh.step({history}).outcome.ok());
  const StepOutput expected = fresh.step(next);
  REQUIRE(expected.outcome.ok());

  Engine engine(plugin, checkpoint, options);
  REQUIRE(engine.step({history}).outcome.ok());
  const auto kv_before = engine.memory().kv_cache_bytes;
  const StepOutput refusal = engine.step(refused, capacity);
  CHECK(refusal.outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(refusal.outcome.message, Contains(expected_message));
  CHECK(engine.memory().kv_cache_bytes == kv_before);
  const StepOutput after = engine.step(next);
  REQUIRE(after.outcome.ok());
  CHECK(same_bits(after.logits, expected.logits));
  CHECK(after.next_tokens == expected.next_tokens);
}

}  // namespace

TEST_CASE("oracle: a refused step changes nothing", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const TempDir dir;
  const fs::path ckpt = write_model(dir, make_tiny_model(tiny_config("qwen2"), kSeed));
  // A valid chunk for a new sequence rides along in each refused step: it
  // must not be created either.
  const ChunkSpec bystander{2, {5, 6}, 0, ALGENTA_LOGITS_ALL};

  SECTION("a chunk that does not start at the cached length") {
    check_refusal_changes_nothing(
        plugin, ckpt, {bystander, {1, {3}, 3, ALGENTA_LOGITS_LAST}}, {},
        "sequence 1: chunk starts at position 3 but the sequence holds 4 tokens");
    check_refusal_changes_nothing(plugin, ckpt, {bystander, {1, {3}, 5, ALGENTA_LOGITS_LAST}}, {},
                                  "starts at position 5 but the sequence holds 4 tokens");
  }
  SECTION("a new sequence whose id is live") {
    check_refusal_changes_nothing(plugin, ckpt, {bystander, {1, {3}, 0, ALGENTA_LOGITS_LAST}}, {},
                                  "sequence 1 already holds 4 tokens");
  }
  SECTION("a continuation of a sequence that is not live") {
    check_refusal_changes_nothing(plugin, ckpt, {bystander, {9, {3}, 2, ALGENTA_LOGITS_LAST}}, {},
                                  "sequence 9 is not live");
  }
  SECTION("token ids outside the vocabulary") {
    check_refusal_changes_nothing(plugin, ckpt, {bystander, {1, {3, 101}, 4, ALGENTA_LOGITS_LAST}},
                                  {},
                                  "token id 101 at position 5 is outside the vocabulary [0, 101)");
    check_refusal_changes_nothing(plugin, ckpt, {bystander, {1, {-1}, 4, ALGENTA_LOGITS_LAST}}, {},
                                  "token id -1 at position 4");
  }
  SECTION("positions past the context (never truncated)") {
    check_refusal_changes_nothing(plugin, ckpt,
                                  {bystander, {1, {1, 2, 3, 4, 5}, 4, ALGENTA_LOGITS_LAST}}, {},
                                  "sequence 1: positions 4..8 exceed the context of 8 tokens");
  }
  SECTION("a logits buffer smaller than the request") {
    check_refusal_changes_nothing(
        plugin, ckpt, {bystander, {1, {3}, 4, ALGENTA_LOGITS_LAST}}, 202,
        "the requested logits need 303 floats but the logits buffer holds 202");
  }
  SECTION("a sequence twice in one step") {
    check_refusal_changes_nothing(plugin, ckpt, {bystander, {2, {7}, 2, ALGENTA_LOGITS_LAST}}, {},
                                  "sequence 2 appears in more than one chunk");
  }
  SECTION("an empty chunk and an unknown logits request") {
    check_refusal_changes_nothing(plugin, ckpt, {bystander, {1, {}, 4, ALGENTA_LOGITS_LAST}}, {},
                                  "has no tokens");
    check_refusal_changes_nothing(plugin, ckpt, {bystander, {1, {3}, 4, 7}}, {},
                                  "want_logits is 7");
  }
}

TEST_CASE("oracle: more live sequences than max_sequences are refused", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const TempDir dir;
  const fs::path ckpt = write_model(dir, make_tiny_model(tiny_config("llama"), kSeed));
  Engine engine(plugin, ckpt, {.max_sequences = 2});
  REQUIRE(engine.step({{1, {1}, 0, ALGENTA_LOGITS_NONE}}).outcome.ok());
  const StepOutput refused =
      engine.step({{2, {1}, 0, ALGENTA_LOGITS_NONE}, {3, {1}, 0, ALGENTA_LOGITS_NONE}});
  CHECK(refused.outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(refused.outcome.message, Contains("3 sequences live") && Contains("at most 2"));
  REQUIRE(engine.free({1}).ok());
  CHECK(engine.step({{2, {1}, 0, ALGENTA_LOGITS_NONE}, {3, {1}, 0, ALGENTA_LOGITS_NONE}})
            .outcome.ok());
}

TEST_CASE("oracle: freeing an unknown sequence frees none", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const TempDir dir;
  const fs::path ckpt = write_model(dir, make_tiny_model(tiny_config("llama"), kSeed));
  Engine engine(plugin, ckpt);
  REQUIRE(engine.step({{1, {1, 2}, 0, ALGENTA_LOGITS_NONE}, {2, {3}, 0, ALGENTA_LOGITS_NONE}})
              .outcome.ok());
  const Outcome refused = engine.free({1, 42});
  CHECK(refused.code == ALGENTA_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(refused.message, Contains("sequence 42 is not live"));
  // Sequence 1 is still there: it continues at position 2, and cannot restart.
  CHECK(engine.step({{1, {4}, 2, ALGENTA_LOGITS_NONE}}).outcome.ok());
  CHECK_THAT(engine.step({{1, {4}, 0, ALGENTA_LOGITS_NONE}}).outcome.message,
             Contains("sequence 1 already holds 3 tokens"));
  REQUIRE(engine.free({1, 2}).ok());
  CHECK(engine.step({{1, {4}, 0, ALGENTA_LOGITS_NONE}}).outcome.ok());
}

TEST_CASE("oracle: open refuses facts outside its declared ranges, naming each", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  struct Case {
    const char* what;
    const char* family;
    nlohmann::json patch;
    std::vector<std::string> named;
  };
  const std::vector<Case> cases = {
      {"activation", "llama", {{"hidden_act", "gelu"}}, {"hidden_act = gelu"}},
      {"rope scaling",
       "llama",
       {{"rope_scaling", {{"rope_type", "yarn"}, {"factor", 4.0}}}},
       {"rope_scaling = yarn"}},
      {"mlp bias", "llama", {{"mlp_bias", true}}, {"mlp_bias = 1"}},
      {"sliding window", "mistral", {{"sliding_window", 16}}, {"sliding_window = 16"}},
      {"experts", "llama", {{"num_local_experts", 8}}, {"mlp_kind = mixture_of_experts"}},
      {"family and activation",
       "llama",
       {{"model_type", "phi3"}, {"hidden_act", "gelu"}},
       {"family = unknown (model_type phi3)", "hidden_act = gelu"}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.what) {
      const TempDir dir;
      nlohmann::json config = tiny_config(c.family);
      config.merge_patch(c.patch);
      TinyModel model = make_tiny_model(tiny_config("llama"), kSeed);
      model.config = config;
      const Outcome outcome = Engine::try_open(plugin, write_model(dir, model), {});
      CHECK(outcome.code == ALGENTA_STATUS_UNSUPPORTED);
      for (const std::string& fact : c.named) CHECK_THAT(outcome.message, Contains(fact));
    }
  }
}

TEST_CASE("oracle: open refuses missing and misshaped tensors and a context too long", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const TinyModel good = make_tiny_model(tiny_config("qwen3"), kSeed);

  SECTION("a missing tensor") {
    const TempDir dir;
    TinyModel model = good;
    model.tensors.erase("model.layers.1.self_attn.k_norm.weight");
    const Outcome outcome = Engine::try_open(plugin, write_model(dir, model), {});
    CHECK(outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(outcome.message,
               Contains("model.layers.1.self_attn.k_norm.weight") && Contains("missing"));
  }
  SECTION("a tensor of the wrong shape") {
    const TempDir dir;
    TinyModel model = good;
    Tensor& t = model.tensors.at("model.layers.0.mlp.down_proj.weight");
    t.shape = {96, 48};
    const Outcome outcome = Engine::try_open(plugin, write_model(dir, model), {});
    CHECK(outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(outcome.message, Contains("model.layers.0.mlp.down_proj.weight") &&
                                    Contains("[96, 48]") && Contains("[48, 96]"));
  }
  SECTION("max_context beyond max_position_embeddings") {
    const TempDir dir;
    const Outcome outcome = Engine::try_open(plugin, write_model(dir, good), {.max_context = 65});
    CHECK(outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(outcome.message,
               Contains("requested_max_context 65") && Contains("max_position_embeddings 64"));
  }
  SECTION("a directory that is no checkpoint") {
    const TempDir dir;
    const Outcome outcome = Engine::try_open(plugin, dir.path(), {});
    CHECK(outcome.code == ALGENTA_STATUS_IO);
  }
  SECTION("a bad thread count") {
    const TempDir dir;
    const Outcome outcome = Engine::try_open(plugin, write_model(dir, good), {.threads = "zero"});
    CHECK(outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(outcome.message, Contains("ALGENTA_ORACLE_THREADS"));
  }
}
