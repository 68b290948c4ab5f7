// One request's decoding over a byte-level tokenizer whose ids are bytes:
// text assembly, stop strings across tokens, end ids, max_tokens, min_tokens
// and logprobs, driven with hand-made logits.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "serve/generation.hpp"
#include "tokenizer/byte_level_alphabet.hpp"
#include "tokenizer/tokenizer.hpp"
#include "../tokenizer/tokenizer_json_builder.hpp"

using namespace algenta;
using algenta::openai::FinishReason;

namespace {

constexpr std::int32_t kEos = 256;

// Ids 0-255 are the bytes; 256 is a special end-of-sequence token.
tokenizer::Tokenizer byte_tokenizer() {
  std::vector<std::string> vocab;
  for (int b = 0; b < 256; ++b) vocab.push_back(tokenizer::byte_level::to_alphabet(std::string(1, static_cast<char>(b))));
  vocab.push_back("<eos>");
  nlohmann::json doc = tokenizer::test::document(tokenizer::test::bpe_model(vocab, nlohmann::json::array()));
  doc["added_tokens"] = {{{"id", kEos}, {"content", "<eos>"}, {"special", true}, {"normalized", false}}};
  doc["decoder"] = {{"type", "ByteLevel"}};
  return tokenizer::test::load(doc);
}

serve::GenerationSpec greedy_spec(std::uint32_t max_tokens) {
  serve::GenerationSpec spec;
  spec.prompt = {'h', 'i'};
  spec.params.temperature = 0.0;
  spec.max_tokens = max_tokens;
  spec.eos_token_ids = {kEos};
  return spec;
}

struct Run {
  std::string text;
  std::optional<FinishReason> finish;
  std::size_t steps = 0;
};

// Feeds the engine's greedy tokens one per step until the generation ends.
Run feed(serve::Generation& g, const std::vector<std::int32_t>& tokens) {
  Run run;
  for (std::int32_t t : tokens) {
    REQUIRE_FALSE(g.needs_logits());
    const serve::StepOutput out = g.advance({}, t);
    run.text += out.text;
    ++run.steps;
    if (out.finished) {
      run.finish = out.finished;
      break;
    }
  }
  return run;
}

std::vector<std::int32_t> bytes_of(const std::string& s) {
  return std::vector<std::int32_t>(s.begin(), s.end());
}

}  // namespace

TEST_CASE("Greedy tokens become text; the end id stops without text", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  serve::Generation g(greedy_spec(100), &tok);
  auto tokens = bytes_of("abc");
  tokens.push_back(kEos);
  const Run run = feed(g, tokens);
  CHECK(run.text == "abc");
  CHECK(run.finish == FinishReason::stop);
  CHECK(g.output().size() == 4);
}

TEST_CASE("max_tokens ends the answer with finish reason length", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  serve::Generation g(greedy_spec(3), &tok);
  const Run run = feed(g, bytes_of("abcdef"));
  CHECK(run.text == "abc");
  CHECK(run.finish == FinishReason::length);
  CHECK(run.steps == 3);
}

TEST_CASE("A multi-byte character is never split across outputs", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  serve::Generation g(greedy_spec(10), &tok);
  const std::string euro = "\xE2\x82\xAC";
  std::vector<std::string> pieces;
  for (std::int32_t t : bytes_of("a" + euro + "b")) {
    pieces.push_back(g.advance({}, static_cast<unsigned char>(t)).text);
  }
  CHECK(pieces == std::vector<std::string>{"a", "", "", euro, "b"});
}

TEST_CASE("A stop string across tokens ends the answer before it", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  serve::GenerationSpec spec = greedy_spec(100);
  spec.stop_strings = {"XY"};
  serve::Generation g(spec, &tok);
  const Run run = feed(g, bytes_of("abXYcd"));
  CHECK(run.text == "ab");
  CHECK(run.finish == FinishReason::stop);
  CHECK(run.steps == 4);
}

TEST_CASE("ignore_eos keeps going past the end id; stop ids still stop", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  serve::GenerationSpec spec = greedy_spec(100);
  spec.ignore_eos = true;
  spec.stop_token_ids = {'z'};
  serve::Generation g(spec, &tok);
  auto tokens = bytes_of("a");
  tokens.push_back(kEos);
  for (std::int32_t t : bytes_of("bz")) tokens.push_back(t);
  const Run run = feed(g, tokens);
  CHECK(run.text == "ab");  // the special token's text is skipped
  CHECK(run.finish == FinishReason::stop);
  CHECK(run.steps == 4);
}

TEST_CASE("min_tokens keeps the end id from being drawn", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  serve::GenerationSpec spec = greedy_spec(100);
  spec.min_tokens = 2;
  serve::Generation g(spec, &tok);
  std::vector<float> logits(257, 0.0f);
  logits[kEos] = 10.0f;
  logits['q'] = 5.0f;
  REQUIRE(g.needs_logits());
  CHECK(g.advance(logits, kEos).text == "q");
  CHECK(g.advance(logits, kEos).text == "q");
  CHECK_FALSE(g.needs_logits());
  CHECK(g.advance(logits, kEos).finished == FinishReason::stop);
}

TEST_CASE("logprobs are the log-softmax of the raw logits, with the top ones", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  serve::GenerationSpec spec = greedy_spec(100);
  spec.params.logprobs = true;
  spec.params.top_logprobs = 2;
  serve::Generation g(spec, &tok);
  std::vector<float> logits(257, -1e9f);
  logits['a'] = 2.0f;
  logits['b'] = 1.0f;
  const serve::StepOutput out = g.advance(logits, 0);
  REQUIRE(out.logprobs.size() == 1);
  const double log_sum = std::log(std::exp(2.0) + std::exp(1.0));
  CHECK(out.logprobs[0].token == "a");
  CHECK(out.logprobs[0].logprob == Approx(2.0 - log_sum).margin(1e-12));
  REQUIRE(out.logprobs[0].top.size() == 2);
  CHECK(out.logprobs[0].top[1].first == "b");
  CHECK(out.logprobs[0].top[1].second == Approx(1.0 - log_sum).margin(1e-12));
}

TEST_CASE("Sampling with a seed is reproducible and draws from the candidates", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  std::vector<float> logits(257, -1e9f);
  for (char c : std::string("abcd")) logits[static_cast<unsigned char>(c)] = 0.0f;
  auto draw = [&](std::uint64_t seed) {
    serve::GenerationSpec spec = greedy_spec(20);
    spec.params.temperature = 1.0;
    spec.seed = seed;
    serve::Generation g(spec, &tok);
    std::string text;
    for (int i = 0; i < 20; ++i) text += g.advance(logits, 0).text;
    return text;
  };
  CHECK(draw(7) == draw(7));
  CHECK(draw(7) != draw(8));
  CHECK(draw(7).find_first_not_of("abcd") == std::string::npos);
}

TEST_CASE("Without a tokenizer: no text, ids only, logprobs with each token", "[serve][generation]") {
  serve::GenerationSpec spec = greedy_spec(3);
  spec.params.logprobs = true;
  spec.params.top_logprobs = 1;
  serve::Generation g(spec, nullptr);
  std::vector<float> logits(257, -1e9f);
  logits[0xE2] = 2.0f;  // the first byte of a multi-byte character: held back with a tokenizer
  logits['b'] = 1.0f;
  const serve::StepOutput first = g.advance(logits, 0);
  CHECK(first.token == 0xE2);
  CHECK(first.text.empty());
  REQUIRE(first.logprobs.size() == 1);
  CHECK(first.logprobs[0].token == "token_id:226");
  REQUIRE(first.logprobs[0].top.size() == 1);
  CHECK(first.logprobs[0].top[0].first == "token_id:226");
  CHECK_FALSE(first.finished);
  g.advance(logits, 0);
  const serve::StepOutput last = g.advance(logits, 0);
  CHECK(last.text.empty());
  CHECK(last.logprobs.size() == 1);
  CHECK(last.finished == FinishReason::length);
  CHECK(g.output() == std::vector<std::int32_t>{0xE2, 0xE2, 0xE2});
}

TEST_CASE("For an engine that draws: the request names what advance() would use", "[serve][generation]") {
  const auto tok = byte_tokenizer();
  serve::GenerationSpec spec = greedy_spec(100);
  spec.min_tokens = 1;
  spec.stop_token_ids = {300, 'z', -1};  // 300 is past this vocabulary, -1 never an id
  spec.params.temperature = 0.5;
  spec.params.logprobs = true;
  spec.seed = 42;
  serve::Generation g(spec, &tok);
  std::optional<host::ChunkSampling> request = g.engine_sampling(257);
  REQUIRE(request.has_value());
  CHECK(request->params.temperature == 0.5);
  CHECK(request->seed == 42);
  CHECK(std::vector<std::int32_t>(request->prompt_tokens.begin(), request->prompt_tokens.end()) ==
        std::vector<std::int32_t>{'h', 'i'});
  CHECK(request->output_tokens.empty());
  // min_tokens not reached: the end ids inside the vocabulary are banned.
  CHECK(std::vector<std::int32_t>(request->banned_tokens.begin(), request->banned_tokens.end()) ==
        std::vector<std::int32_t>{'z', kEos});

  host::DrawnLogprobs drawn;
  drawn.logprob = -0.25;
  drawn.top = {{'q', -0.25}};
  const serve::StepOutput out = g.advance_drawn('q', drawn);
  CHECK(out.text == "q");
  REQUIRE(out.logprobs.size() == 1);
  CHECK(out.logprobs[0].token == "q");
  CHECK(out.logprobs[0].logprob == -0.25);
  REQUIRE(out.logprobs[0].top.size() == 1);
  request = g.engine_sampling(257);
  REQUIRE(request.has_value());
  CHECK(request->banned_tokens.empty());  // min_tokens reached
  CHECK(std::vector<std::int32_t>(request->output_tokens.begin(), request->output_tokens.end()) ==
        std::vector<std::int32_t>{'q'});
  // A drawn token without the logprob asked for is the engine's bug.
  CHECK_THROWS_WITH(g.advance_drawn('q', host::DrawnLogprobs{}),
                    Catch::Contains("without the logprob asked for"));
}

TEST_CASE("A greedy request needs nothing drawn: no sampling request", "[serve][generation]") {
  serve::Generation g(greedy_spec(4), nullptr);
  CHECK_FALSE(g.engine_sampling(257).has_value());
}
