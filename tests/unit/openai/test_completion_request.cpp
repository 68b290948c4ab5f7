#include <catch2/catch.hpp>

#include "openai/errors.hpp"
#include "openai/requests.hpp"

using namespace algenta::openai;

namespace {

ApiError refusal(const std::string& body) {
  try {
    parse_completion_request(body);
  } catch (const ApiError& e) {
    return e;
  }
  FAIL("accepted: " << body);
  throw;
}

Prompt prompt_of(const std::string& prompt_json) {
  return parse_completion_request(R"({"model":"m","prompt":)" + prompt_json + "}").prompt;
}

using Ids = std::vector<std::int64_t>;

}  // namespace

TEST_CASE("the four prompt shapes") {
  CHECK(std::get<std::string>(prompt_of(R"("once upon")")) == "once upon");
  CHECK(std::get<std::string>(prompt_of(R"(["once upon"])")) == "once upon");
  CHECK(std::get<Ids>(prompt_of("[1, 2, 3]")) == Ids{1, 2, 3});
  CHECK(std::get<Ids>(prompt_of("[[4, 5]]")) == Ids{4, 5});
  CHECK(std::get<std::string>(prompt_of(R"("")")).empty());
}

TEST_CASE("prompts this server cannot take are refused naming 'prompt'") {
  for (const char* bad : {R"(["a", "b"])", "[[1], [2]]", "[]", "[[]]", "[1, \"a\"]", "7",
                          "{\"text\":\"a\"}", "[-1]", "[2147483648]", "[[1.5]]"}) {
    CAPTURE(bad);
    const ApiError e = refusal(R"({"model":"m","prompt":)" + std::string(bad) + "}");
    CHECK(e.kind == ErrorKind::invalid_request);
    CHECK(e.param == "prompt");
  }
  CHECK_THAT(refusal(R"({"model":"m","prompt":["a","b"]})").what(),
             Catch::Contains("holds 2 prompts"));
  CHECK(refusal(R"({"model":"m"})").param == "prompt");
}

TEST_CASE("completions: logprobs is an integer, and echo, suffix, best_of are refused") {
  const CompletionRequest r = parse_completion_request(
      R"({"model":"m","prompt":"x","logprobs":3,"max_tokens":5,"echo":false,"best_of":1,"suffix":null})");
  CHECK(r.logprobs == 3);
  CHECK(r.sampling.max_tokens == 5);
  CHECK_FALSE(parse_completion_request(R"({"model":"m","prompt":"x"})").logprobs);
  CHECK(parse_completion_request(R"({"model":"m","prompt":"x","logprobs":0})").logprobs == 0);
  CHECK(refusal(R"({"model":"m","prompt":"x","logprobs":true})").param == "logprobs");
  CHECK(refusal(R"({"model":"m","prompt":"x","logprobs":21})").param == "logprobs");
  CHECK(refusal(R"({"model":"m","prompt":"x","echo":true})").param == "echo");
  CHECK(refusal(R"({"model":"m","prompt":"x","suffix":"end"})").param == "suffix");
  CHECK(refusal(R"({"model":"m","prompt":"x","best_of":3})").param == "best_of");
  CHECK(refusal(R"({"model":"m","prompt":"x","n":2})").param == "n");
  CHECK(refusal(R"({"model":"m","prompt":"x","logit_bias":{"1":5}})").param == "logit_bias");
  // Chat-only fields are unknown here.
  CHECK(refusal(R"({"model":"m","prompt":"x","messages":[]})").param == "messages");
  CHECK(refusal(R"({"model":"m","prompt":"x","top_logprobs":2})").param == "top_logprobs");
}

TEST_CASE("completions share the sampling fields and their checks") {
  const CompletionRequest r = parse_completion_request(
      R"({"model":"m","prompt":"x","temperature":0.7,"seed":1,"stop":"\n","stream":true,
          "stream_options":{"include_usage":false},"ignore_eos":false,"user":"u"})");
  CHECK(r.sampling.temperature == 0.7);
  CHECK(r.sampling.seed == 1);
  CHECK(r.streaming.stream);
  CHECK_FALSE(r.streaming.include_usage);
  CHECK(refusal(R"({"model":"m","prompt":"x","max_tokens":-1})").param == "max_tokens");
  CHECK(refusal(R"({"model":"m","prompt":"x","user":5})").param == "user");
}

TEST_CASE("caps are the caller's") {
  RequestCaps caps;
  caps.max_tokens = 100;
  caps.max_prompt_token_ids = 2;
  CHECK_THROWS_WITH(parse_completion_request(R"({"model":"m","prompt":"x","max_tokens":101})", caps),
                    Catch::Contains("from 1 to 100, got 101"));
  CHECK_THROWS_WITH(parse_completion_request(R"({"model":"m","prompt":[1,2,3]})", caps),
                    Catch::Contains("3 token ids, over the cap of 2"));
}

TEST_CASE("return_token_ids is taken without stream and refused with it") {
  CHECK(parse_completion_request(R"({"model":"m","prompt":"a","return_token_ids":true})").return_token_ids);
  CHECK_FALSE(parse_completion_request(R"({"model":"m","prompt":"a"})").return_token_ids);
  CHECK(parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"a"}],"return_token_ids":true})")
            .return_token_ids);
  const ApiError e =
      refusal(R"({"model":"m","prompt":"a","stream":true,"return_token_ids":true})");
  CHECK(e.param == "return_token_ids");
  CHECK_THAT(e.what(), Catch::Contains("without 'stream'"));
}
