// The host's side of ABI 1.1 block tables through a real loaded plugin: a
// session offers them, takes the geometry of an engine that accepts (built
// from the frozen 1.1 header) and falls back to the engine's own cache when
// a 1.0 engine (built from the frozen 1.0 copy) leaves the offer unanswered;
// serve's scheduler limits and prefix cache follow. The same for ABI 1.2
// engine sampling: taken by an engine built from the frozen 1.2 copy,
// unanswered (declined) by a 1.1 one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>

#include "engine/engine_session.hpp"
#include "loader/verified_loader.hpp"
#include "serve/batch_limits.hpp"
#include "serve/prefix_cache_choice.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;

namespace {

// An open session over a copy of the test plugin `name` (the echo engine).
struct EchoSession {
  test::TempDir dir;
  std::unique_ptr<host::EngineSession> session;

  EchoSession(const std::string& name, bool offer_block_tables, bool offer_sampling = false) {
    const fs::path file = dir.path() / ("lib" + name + ".so");
    fs::copy_file(test::test_plugin_dir() / file.filename(), file);
    const manifest::PluginEntry entry = test::entry_for_file(file, name, "engine", "sm_86");
    host::EngineOpenOptions options;
    options.checkpoint_dir = "unused";
    options.host_block_tables = offer_block_tables;
    options.engine_sampling = offer_sampling;
    session = std::make_unique<host::EngineSession>(loader::load_verified_plugin(dir.path(), entry),
                                                    options);
  }
};

host::StepResult step_with_table(host::EngineSession& session) {
  host::ChunkRequest chunk;
  chunk.sequence_id = 1;
  chunk.tokens = {7, 8};
  chunk.block_table = {3};
  return session.step({chunk});
}

}  // namespace

TEST_CASE("a 1.0 engine leaves the block-table offer unanswered: the host keeps its cache",
          "[serve][abi]") {
  EchoSession echo("acme_echo_1_0", true);
  CHECK_FALSE(echo.session->host_block_geometry().has_value());
  // Its chunks may still carry a table; a 1.0 engine never reads it.
  CHECK(step_with_table(*echo.session).next_tokens == std::vector<std::int32_t>{9});
  // The scheduler plans over the engine's own paged cache, as with ABI 1.0.
  const sched::SchedulerLimits limits =
      serve::batch_limits(echo.session->memory_report(), echo.session->host_block_geometry(),
                          echo.session->max_context(), {8, 4, 16});
  CHECK(limits.tokens_per_block == 16);
  CHECK(limits.total_blocks == 8);
}

TEST_CASE("a 1.1 engine that takes block tables gives the host their geometry", "[serve][abi]") {
  EchoSession echo("acme_echo_1_1", true);
  REQUIRE(echo.session->host_block_geometry().has_value());
  CHECK(echo.session->host_block_geometry()->tokens_per_block == 16);
  CHECK(echo.session->host_block_geometry()->blocks_total == 8);
  CHECK(step_with_table(*echo.session).next_tokens == std::vector<std::int32_t>{9});

  EchoSession not_offered("acme_echo_1_1", false);
  CHECK_FALSE(not_offered.session->host_block_geometry().has_value());
}

TEST_CASE("serve's prefix cache follows the engine's answer unless the flag says otherwise",
          "[serve][abi]") {
  const host::HostBlockGeometry blocks{16, 4096};
  serve::PrefixCacheChoice choice = serve::choose_prefix_cache("", blocks, "cpu_oracle");
  CHECK(choice.enabled);
  CHECK(choice.reason == "on: prompts that begin alike share KV blocks of 16 tokens");
  CHECK(serve::choose_prefix_cache("on", blocks, "cpu_oracle").enabled);
  choice = serve::choose_prefix_cache("off", blocks, "cpu_oracle");
  CHECK_FALSE(choice.enabled);
  CHECK(choice.reason == "off (--prefix-cache off)");

  choice = serve::choose_prefix_cache("", std::nullopt, "cuda_sm90a");
  CHECK_FALSE(choice.enabled);
  CHECK(choice.refusal.empty());
  CHECK(choice.reason == "off: cuda_sm90a keeps its own KV cache");
  choice = serve::choose_prefix_cache("on", std::nullopt, "cuda_sm90a");
  CHECK_FALSE(choice.enabled);
  CHECK(choice.refusal ==
        "--prefix-cache on needs an engine that takes the host's KV block tables (ABI 1.1), and "
        "cuda_sm90a keeps its own KV cache: leave --prefix-cache unset or set it to off");
}

TEST_CASE("a 1.2 engine that takes engine sampling draws a sampled chunk's token", "[serve][abi]") {
  EchoSession echo("acme_echo_1_2", true, /*offer_sampling=*/true);
  REQUIRE(echo.session->engine_samples());
  host::ChunkRequest greedy;
  greedy.sequence_id = 1;
  greedy.tokens = {7, 8};
  greedy.block_table = {3};
  host::ChunkRequest sampled = greedy;
  sampled.sequence_id = 2;
  sampled.block_table = {4};
  host::ChunkSampling sampling;
  sampling.params.temperature = 0.7;
  sampling.params.logprobs = true;
  sampling.params.top_logprobs = 3;
  sampling.seed = 123;
  sampled.sampling = sampling;
  const host::StepResult result = echo.session->step({greedy, sampled});
  // The echo engine "draws" the seed, with logprob -1 and no alternatives.
  CHECK(result.next_tokens == std::vector<std::int32_t>{9, 123});
  REQUIRE(result.drawn.size() == 2);
  CHECK_FALSE(result.drawn[0].logprob.has_value());
  REQUIRE(result.drawn[1].logprob.has_value());
  CHECK(*result.drawn[1].logprob == -1.0);
  CHECK(result.drawn[1].top.empty());

  EchoSession not_offered("acme_echo_1_2", true, /*offer_sampling=*/false);
  CHECK_FALSE(not_offered.session->engine_samples());
  // A host never sends parameters to an engine that does not draw.
  REQUIRE_THROWS_WITH(not_offered.session->step({sampled}),
                      Catch::Contains("the engine does not sample"));
}

TEST_CASE("a step's device-to-host bytes come from a 1.3 engine, none from an older one",
          "[serve][abi]") {
  EchoSession current("acme_echo_1_3", true, /*offer_sampling=*/false);
  const host::StepResult reported = step_with_table(*current.session);
  REQUIRE(reported.device_to_host_bytes.has_value());
  CHECK(*reported.device_to_host_bytes == 0);  // the echo engine has no device
  EchoSession older("acme_echo_1_2", true, /*offer_sampling=*/false);
  CHECK_FALSE(step_with_table(*older.session).device_to_host_bytes.has_value());
}

TEST_CASE("a 1.1 engine leaves the sampling offer unanswered: the host samples", "[serve][abi]") {
  EchoSession echo("acme_echo_1_1", true, /*offer_sampling=*/true);
  CHECK_FALSE(echo.session->engine_samples());
  CHECK(step_with_table(*echo.session).next_tokens == std::vector<std::int32_t>{9});
}
