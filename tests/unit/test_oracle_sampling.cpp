// The CPU oracle with engine sampling (ABI 1.2): it takes the offer, draws a
// sampled chunk's token with the host's own pipeline (core/sampling) from
// the logits it computed - the same token, logprob and top logprobs the
// host gets from those logits - and refuses bad parameters before anything
// changes.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sampling/logprobs.hpp"
#include "sampling/sampler.hpp"
#include "support/bundle_fixture.hpp"
#include "unit/test_oracle_fixture.hpp"

using namespace algenta::test::oracle;
using algenta::test::TempDir;
using Catch::Matchers::Contains;
namespace sampling = algenta::sampling;

namespace {

constexpr std::uint64_t kSeed = 20251205;

struct Checkpoint {
  TempDir dir;
  TinyModel model;
  fs::path path;
  explicit Checkpoint(const std::string& family)
      : model(make_tiny_model(tiny_config(family), kSeed)), path(dir.path() / "ckpt") {
    write_checkpoint(model, path, algenta::checkpoint::Dtype::BF16);
  }
};

// An AlgentaSampling over `params` and the histories, writing into `out`.
struct Request {
  std::vector<std::int32_t> prompt, output, banned;
  std::uint64_t seed = 0;
  sampling::SamplingParams params;
  double logprob = std::nan("");
  std::int32_t top_tokens[ALGENTA_MAX_TOP_LOGPROBS] = {};
  double top_values[ALGENTA_MAX_TOP_LOGPROBS] = {};
  std::uint32_t top_count = 0;

  AlgentaSampling abi() {
    AlgentaSampling s{};
    s.struct_size = ALGENTA_Sampling_STRUCT_SIZE;
    s.temperature = params.temperature;
    s.top_p = params.top_p;
    s.top_k = params.top_k;
    s.min_p = params.min_p;
    s.presence_penalty = params.presence_penalty;
    s.frequency_penalty = params.frequency_penalty;
    s.repetition_penalty = params.repetition_penalty;
    s.seed = seed;
    s.prompt_tokens = prompt.data();
    s.prompt_token_count = prompt.size();
    s.output_tokens = output.data();
    s.output_token_count = output.size();
    s.banned_tokens = banned.data();
    s.banned_token_count = banned.size();
    s.want_logprob = params.logprobs ? 1 : 0;
    s.top_logprobs = static_cast<std::uint32_t>(params.top_logprobs);
    s.logprob = &logprob;
    s.top_tokens = top_tokens;
    s.top_values = top_values;
    s.top_count = &top_count;
    return s;
  }
};

// What the host draws from `logits` for `r` at `position` (serve's steps:
// bans, then the pipeline; logprobs of the raw logits).
struct HostDraw {
  std::int32_t token = 0;
  double logprob = 0.0;
  std::vector<sampling::TokenLogprob> top;
};

HostDraw host_draw(const Request& r, const std::vector<float>& logits, std::uint64_t position) {
  std::vector<float> row = logits;
  for (std::int32_t id : r.banned) row[id] = -std::numeric_limits<float>::infinity();
  sampling::SamplingParams params = r.params;
  params.logprobs = false;
  params.top_logprobs = 0;
  HostDraw draw;
  draw.token = sampling::sample_token(params, {row, r.prompt, r.output, r.seed, position}).token;
  const sampling::LogSoftmax log_softmax(logits);
  draw.logprob = log_softmax.logprob(draw.token);
  draw.top = log_softmax.top(r.params.top_logprobs);
  return draw;
}

std::vector<Request> requests() {
  std::vector<Request> all;
  Request r;
  r.prompt = {3, 17, 42, 5, 9, 17};
  r.params.temperature = 0.8;
  r.params.logprobs = true;
  r.params.top_logprobs = 5;
  r.seed = 7;
  all.push_back(r);  // plain temperature
  r.params.top_k = 4;
  r.params.top_p = 0.7;
  r.params.min_p = 0.05;
  r.seed = 1234567;
  all.push_back(r);  // every mask
  r = all[0];
  r.output = {17, 99, 99, 4};
  r.params.repetition_penalty = 1.3;
  r.params.frequency_penalty = 0.5;
  r.params.presence_penalty = -0.4;
  r.params.top_logprobs = 0;
  all.push_back(r);  // penalties over prompt and output
  r = all[0];
  r.params.temperature = 0.0;
  r.params.repetition_penalty = 1.8;
  r.banned = {1, 2};
  all.push_back(r);  // greedy after a penalty, with banned ids
  r = all[0];
  r.params.logprobs = false;
  r.params.top_logprobs = 0;
  r.seed = 99;
  all.push_back(r);  // no logprobs asked
  return all;
}

}  // namespace

TEST_CASE("oracle: offered engine sampling, it takes it; not offered, it answers 0", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const Checkpoint ckpt("qwen3");
  AlgentaEngineOpen_Args args{};
  REQUIRE(Engine::try_open(plugin, ckpt.path, {.engine_sampling = true}, &args).ok());
  CHECK(args.sampling_accepted == 1);
  REQUIRE(Engine::try_open(plugin, ckpt.path, {}, &args).ok());
  CHECK(args.sampling_accepted == 0);
}

TEST_CASE("oracle: a sampled chunk's token and logprobs are the host's from the same logits",
          "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  for (const std::string family : {"llama", "qwen3"}) {
    const Checkpoint ckpt(family);
    Engine engine(plugin, ckpt.path, {.engine_sampling = true});
    std::uint64_t sequence = 1;
    for (Request r : requests()) {
      INFO(family << ", request " << sequence);
      // The last prompt token is this chunk's; the draw is for the position after it.
      std::vector<std::int32_t> tokens = r.prompt;
      tokens.insert(tokens.end(), r.output.begin(), r.output.end());
      const AlgentaSampling abi = r.abi();
      ChunkSpec chunk{sequence++, tokens, 0, ALGENTA_LOGITS_LAST};
      chunk.sampling = &abi;
      const StepOutput out = engine.step({chunk});
      REQUIRE(out.outcome.ok());
      const HostDraw expected = host_draw(r, out.logits, tokens.size());
      CHECK(out.next_tokens[0] == expected.token);
      if (r.params.logprobs) {
        CHECK(r.logprob == expected.logprob);
        REQUIRE(r.top_count == expected.top.size());
        for (std::size_t k = 0; k < expected.top.size(); ++k) {
          CHECK(r.top_tokens[k] == expected.top[k].token);
          CHECK(r.top_values[k] == expected.top[k].logprob);
        }
      } else {
        CHECK(std::isnan(r.logprob));  // not asked: not written
      }
    }
  }
}

TEST_CASE("oracle: a chunk's sampling is ignored when engine sampling was not taken", "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const Checkpoint ckpt("llama");
  Engine engine(plugin, ckpt.path);
  Request r = requests()[0];
  const AlgentaSampling abi = r.abi();
  ChunkSpec chunk{1, r.prompt, 0, ALGENTA_LOGITS_LAST};
  chunk.sampling = &abi;
  const StepOutput out = engine.step({chunk});
  REQUIRE(out.outcome.ok());
  // The greedy token: argmax, lowest id on ties.
  std::int32_t best = 0;
  for (std::size_t i = 1; i < out.logits.size(); ++i) {
    if (out.logits[i] > out.logits[best]) best = static_cast<std::int32_t>(i);
  }
  CHECK(out.next_tokens[0] == best);
  CHECK(std::isnan(r.logprob));
}

TEST_CASE("oracle: bad sampling parameters refuse the step, naming the field; nothing changes",
          "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const Checkpoint ckpt("llama");
  Engine engine(plugin, ckpt.path, {.engine_sampling = true});
  const auto refusal = [&](Request r, std::size_t struct_size = ALGENTA_Sampling_STRUCT_SIZE,
                           bool drop_logprob = false) {
    AlgentaSampling abi = r.abi();
    abi.struct_size = struct_size;
    if (drop_logprob) abi.logprob = nullptr;
    ChunkSpec chunk{5, r.prompt, 0, ALGENTA_LOGITS_NONE};
    chunk.sampling = &abi;
    const StepOutput out = engine.step({chunk});
    CHECK(out.outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
    return out.outcome.message;
  };
  Request r = requests()[0];
  r.params.temperature = 150.0;
  CHECK_THAT(refusal(r), Contains("sequence 5: sampling") && Contains("temperature") &&
                             Contains("[0, 100]") && Contains("150"));
  r = requests()[0];
  r.params.top_p = 0.0;
  CHECK_THAT(refusal(r), Contains("top_p"));
  r = requests()[0];
  r.banned = {100000};
  CHECK_THAT(refusal(r), Contains("banned_tokens[0] is 100000, outside the vocabulary"));
  r = requests()[0];
  r.output = {-3};
  CHECK_THAT(refusal(r), Contains("output_tokens[0] is -3"));
  CHECK_THAT(refusal(requests()[0], 16), Contains("struct_size is 16"));
  CHECK_THAT(refusal(requests()[0], ALGENTA_Sampling_STRUCT_SIZE, true),
             Contains("logprob is NULL with want_logprob 1"));
  r = requests()[0];
  r.params.logprobs = false;  // top_logprobs 5 without logprobs
  CHECK_THAT(refusal(r), Contains("top_logprobs"));
  // Sequence 5 was never created: it may still start at position 0.
  const StepOutput out = engine.step({{5, requests()[0].prompt, 0, ALGENTA_LOGITS_NONE}});
  CHECK(out.outcome.ok());
}

TEST_CASE("oracle: an open offer other than 0 or 1 is refused, naming the field and both meanings",
          "[oracle]") {
  const Plugin plugin(oracle_plugin_path());
  const Checkpoint ckpt("llama");
  const std::string dir = ckpt.path.string();
  const auto refusal = [&](std::uint32_t block_tables, std::uint32_t samples) {
    AlgentaEngineOpen_Args args{};
    args.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
    args.checkpoint_dir = dir.c_str();
    args.precision = ALGENTA_PRECISION_EXACT;
    args.host_block_tables = block_tables;
    args.engine_samples = samples;
    const Outcome outcome = outcome_of(plugin.table(), plugin.table().engine_open(&args));
    CHECK(outcome.code == ALGENTA_STATUS_INVALID_ARGUMENT);
    return outcome.message;
  };
  CHECK_THAT(refusal(0, 2), Contains("engine_samples is 2; allowed: 0 (the host samples from "
                                     "logits) or 1 (chunks bring sampling parameters)"));
  CHECK_THAT(refusal(3, 0), Contains("host_block_tables is 3; allowed: 0 (the engine owns its KV "
                                     "cache) or 1 (the host passes block tables)"));
}
